import { isMarkedRunning } from '../support/process-state';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Message } from '../../src/common/messages';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';
import { messagesQuery, statusQuery, stepsQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const systemMessages = (messages: Message[]) => messages.filter((m) => m.role === 'system').map((m) => m.content);


test('a job that succeeds and one that fails: submitted at once, notified with the exact text after the tool round', async () => {
  h.model.setScenario('jobs', [
    {
      toolCalls: [
        { id: 'b1', name: 'background_run', arguments: { command: 'echo built ok', task_id: 'build' } },
        { id: 'b2', name: 'background_run', arguments: { command: 'echo boom >&2; exit 3' } },
      ],
    },
    { toolCalls: [{ id: 'w', name: 'bash', arguments: { command: 'sleep 2' } }] },
    { text: 'Both jobs reported.' },
  ]);
  const handle = await h.start({ prompt: 'run jobs', model: 'jobs', workspace: h.workspace(), permissionMode: 'auto' });
  expect(await handle.result()).toMatchObject({ text: 'Both jobs reported.' });
  const messages = await handle.query(messagesQuery);
  expect(messages[2]?.content).toEqual([
    { type: 'tool_result', tool_use_id: 'b1', content: 'Submitted background task build', is_error: false },
    { type: 'tool_result', tool_use_id: 'b2', content: 'Submitted background task job-1', is_error: false },
  ]);
  // Finished during the `sleep 2` round: injected at the start of the next iteration, after the tool_result message.
  expect(messages[4]?.role).toBe('user');
  expect(messages[5]?.role).toBe('system');
  const note = messages[5]?.content as string;
  expect(note.startsWith('<background-notifications>\nBackground task updates:\n')).toBe(true);
  expect(note).toContain('- Task build: done - built ok');
  expect(note).toContain('- Task job-1: failed - CommandFailed: exit code 3\nboom');
  expect(note.endsWith('</background-notifications>')).toBe(true);
  expect(systemMessages(messages)).toHaveLength(1);
});

test('a final answer while a job runs waits for it (completion proposal) and goes on with its notification', async () => {
  h.model.setScenario('proposal', [
    { toolCalls: [{ id: 'j', name: 'background_run', arguments: { command: 'sleep 1; echo tests green', task_id: 'tests' } }] },
    { text: 'I think we are done.' },
    { text: 'Now we are done: tests green.' },
  ]);
  const handle = await h.start({ prompt: 'test in background', model: 'proposal', workspace: h.workspace(), permissionMode: 'auto' });
  await waitFor(async () => ((await handle.query(statusQuery)).phase === 'waiting_for_jobs' ? true : undefined), 'waiting for jobs');
  expect((await handle.query(statusQuery)).backgroundJobs).toMatchObject([{ taskId: 'tests', kind: 'command' }]);
  expect(await handle.result()).toMatchObject({ text: 'Now we are done: tests green.', iterations: 3 });
  const messages = await handle.query(messagesQuery);
  expect(messages[3]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'I think we are done.' }] });
  expect(messages[4]?.content).toContain('- Task tests: done - tests green');
  expect((await handle.query(stepsQuery)).map((s) => s.reason)).toEqual(['next_turn', 'waiting_for_jobs', 'stop:final_answer']);
});

test('a task id that is still running is refused', async () => {
  h.model.setScenario('dup', [
    {
      toolCalls: [
        { id: 'd1', name: 'background_run', arguments: { command: 'sleep 3', task_id: 'same' } },
        { id: 'd2', name: 'background_run', arguments: { command: 'sleep 3', task_id: 'same' } },
      ],
    },
    { text: 'ok' },
  ]);
  const handle = await h.start({ prompt: 'dup', model: 'dup', workspace: h.workspace(), permissionMode: 'auto', waitForJobs: false });
  await handle.result();
  const results = (await handle.query(messagesQuery))[2]?.content as Array<{ content: string; is_error: boolean }>;
  expect(results.map((r) => [r.content, r.is_error])).toEqual([
    ['Submitted background task same', false],
    ['Background task already running: same', true],
  ]);
});

test('a job still running when the run ends is cancelled and its process is really gone', async () => {
  const marker = `bareagent-job-${Date.now()}`;
  h.model.setScenario('abandon', [
    { toolCalls: [{ id: 'a', name: 'background_run', arguments: { command: `touch job.started; exec -a ${marker} sleep 60`, timeout: 120 } }] },
    { toolCalls: [{ id: 'w', name: 'bash', arguments: { command: 'sleep 1' } }] },
    { text: 'Leaving the job behind.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'abandon', model: 'abandon', workspace, permissionMode: 'auto', waitForJobs: false });
  await handle.result();
  expect(existsSync(path.join(workspace, 'job.started'))).toBe(true);
  await waitFor(async () => (isMarkedRunning(marker) ? undefined : true), 'the job process to be killed');
  const job = h.client.workflow.getHandle(`${handle.workflowId}.job-1`);
  await waitFor(async () => ((await job.describe()).status.name === 'CANCELLED' ? true : undefined), 'the job workflow to be cancelled');
});

test('the worker killed during a job, then restarted: the job runs again and its outcome reaches the run', async () => {
  await h.stopWorkers();
  const first = await WorkerProcess.start(h);
  // Answers follow the conversation, not the request count: a model call retried after the
  // kill gets the same answer as the lost one.
  h.model.setScenario('crash', (body: { messages: Array<{ role: string; content: unknown }> }) => {
    const text = JSON.stringify(body.messages);
    if (text.includes('<background-notifications>')) return { text: 'The slow job finished.' };
    if (text.includes('Submitted background task slow')) return { text: 'Waiting.' };
    return { toolCalls: [{ id: 'c', name: 'background_run', arguments: { command: 'echo started >> runs.log; sleep 2; echo finished', task_id: 'slow' } }] };
  });
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'crash', model: 'crash', workspace, permissionMode: 'auto' });
  await waitFor(async () => (readFileSync(path.join(workspace, 'runs.log'), 'utf8').includes('started') ? true : undefined), 'the job to start');
  await first.kill();
  const second = await WorkerProcess.start(h);
  try {
    expect(await handle.result()).toMatchObject({ text: 'The slow job finished.' });
    const messages = await handle.query(messagesQuery);
    expect(systemMessages(messages).join('')).toContain('- Task slow: done - finished');
    expect(readFileSync(path.join(workspace, 'runs.log'), 'utf8').trim().split('\n')).toEqual(['started', 'started']);
  } finally {
    await second.kill();
    await h.startWorker();
  }
});
