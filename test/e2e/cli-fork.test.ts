import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { type Harness } from '../support/harness';
import { cliHarness, runCli } from '../support/cli';
import { waitFor } from '../support/wait-for';
import { messagesQuery, statusQuery, stepsQuery } from '../../src/common/contract';
import { withoutRunContext } from '../support/prompt-sent';

/** `bareagent resume` and `bareagent fork`, run as a user would, on the test dev server with a harness worker. */
let h: Harness;
let env: Record<string, string>;
const suffix = randomUUID().slice(0, 8);
beforeAll(async () => {
  ({ h, env } = await cliHarness());
  env.BAREAGENT_WORKFLOW_BUNDLE = h.env.bundlePath;
});
afterAll(() => h.close());

const USAGE = { prompt_tokens: 400, completion_tokens: 100 };
const lastLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as { workflowId: string; status: string; result?: { text: string } };
const toolMessages = (body: { messages: Array<{ role: string; tool_call_id?: string; content?: unknown }> }) => body.messages.filter((m) => m.role === 'tool');

test('a run stopped by BudgetExceeded, resumed with a larger budget, finishes without repeating a tool call', async () => {
  const model = `budget-${suffix}`;
  const script = [
    { text: 'Logging.', toolCalls: [{ id: 'call_log', name: 'bash', arguments: { command: 'echo one >> log.txt' } }], usage: USAGE },
    { text: 'Writing notes.', toolCalls: [{ id: 'call_notes', name: 'write_file', arguments: { file_path: 'notes.txt', content: 'notes\n' } }], usage: USAGE },
    { text: 'Editing.', toolCalls: [{ id: 'call_edit', name: 'edit_file', arguments: { file_path: 'notes.txt', old_text: 'notes', new_text: 'edited notes' } }], usage: USAGE },
    { text: 'RESUMED: all done.', usage: USAGE },
  ];
  h.model.setScenario(model, script);
  const workspace = h.workspace();
  // A ceiling of 1,800: the first call's prompt is estimated at about 1,500 (system prompt and tools),
  // the next ones from the provider's 400; after three calls of 500 the fourth does not fit.
  const origin = await h.start({ prompt: 'log, write and edit', model, workspace, permissionMode: 'bypass', stream: false, budgets: { maxTokens: 1800 } }, `budget-${suffix}`);
  await expect(origin.result()).rejects.toMatchObject({ cause: { type: 'BudgetExceeded' } });
  expect(h.model.requestsFor(model)).toHaveLength(3);

  const resumed = await runCli(['resume', origin.workflowId, '--max-tokens', '100000', '--id', `resumed-${suffix}`, '--json'], env);
  expect(resumed.stderr).toBe('');
  expect(resumed.code).toBe(0);
  expect(lastLine(resumed.stdout)).toMatchObject({ workflowId: `resumed-${suffix}`, status: 'completed', result: { text: 'RESUMED: all done.' } });

  // The model got the origin's three tool results and was asked to go on; nothing ran twice.
  const requests = h.model.requestsFor(model);
  expect(requests).toHaveLength(4);
  expect(toolMessages(requests[3]!.body).map((m) => m.tool_call_id)).toEqual(['call_log', 'call_notes', 'call_edit']);
  expect(requests[3]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Continue from where you stopped.' });
  expect(readFileSync(path.join(workspace, 'log.txt'), 'utf8')).toBe('one\n');
  expect(readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('edited notes\n');

  const handle = h.client.workflow.getHandle(`resumed-${suffix}`);
  const messages = await handle.query(messagesQuery);
  const results = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');
  expect(results.map((b) => (b as { tool_use_id: string }).tool_use_id)).toEqual(['call_log', 'call_notes', 'call_edit']);
  // The new run's own steps: the one answer, no tool, its budget counted from zero with the new limit.
  const steps = await handle.query(stepsQuery);
  expect(steps.map((s) => [s.reason, s.tools])).toEqual([['stop:final_answer', []]]);
  expect(steps[0]!.budget_before).toMatchObject({ tokens: 100000, used: { inputTokens: 0, outputTokens: 0 } });
  const status = await handle.query(statusQuery);
  expect(status.forkedFrom).toMatchObject({ workflowId: origin.workflowId, step: 4 });

  // A completed run is not resumed: it is forked.
  const again = await runCli(['resume', `resumed-${suffix}`], env);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`completed with its answer: to go on from there, fork it: bareagent fork resumed-${suffix}`);
});

describe('fork at step 2 of a 5-step run', () => {
  let origin: WorkflowHandle;
  const forkId = `fork-${suffix}`;
  beforeAll(async () => {
    const model = `five-${suffix}`;
    h.model.setScenario(
      model,
      [1, 2, 3, 4].map((i) => ({ text: `Turn ${i}.`, toolCalls: [{ id: `call_${i}`, name: 'bash', arguments: { command: `echo ${i} >> log.txt` } }] })).concat([{ text: 'Five done.', toolCalls: [] }]),
    );
    origin = await h.start({ prompt: 'five steps', model, workspace: h.workspace(), permissionMode: 'bypass', stream: false }, `five-${suffix}`);
    await origin.result();
  });

  test('the fork sees exactly the conversation of step 2; later tool results are absent', async () => {
    h.model.setScenario(`other-${suffix}`, [{ text: 'Took the other way.' }]);
    const forked = await runCli(['fork', origin.workflowId, '--step', '2', '--prompt', 'Try the other way', '--model', `other-${suffix}`, '--id', forkId, '--json'], env);
    expect(forked.stderr).toBe('');
    expect(lastLine(forked.stdout)).toMatchObject({ status: 'completed', result: { text: 'Took the other way.' } });
    const [request] = h.model.requestsFor(`other-${suffix}`);
    const sent = request!.body.messages.filter((m: { role: string }) => m.role !== 'system');
    expect(sent.map((m: { role: string; tool_call_id?: string; content?: unknown }) => m.tool_call_id ?? `${m.role}:${typeof m.content === 'string' ? withoutRunContext(m.content) : ''}`)).toEqual([
      'user:five steps',
      'assistant:Turn 1.',
      'call_1',
      'assistant:Turn 2.',
      'call_2',
      'user:Try the other way',
    ]);
    const messages = JSON.stringify(await h.client.workflow.getHandle(forkId).query(messagesQuery));
    expect(messages).not.toContain('call_3');
    expect(messages).not.toContain('Turn 3.');
  });

  test('status and list show the link to the origin', async () => {
    const status = await runCli(['status', forkId], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`forked from ${origin.workflowId} at step 2`);
    const listed = await waitFor(async () => {
      const list = await runCli(['list', '--forked-from', origin.workflowId, '--json'], env);
      const runs = JSON.parse(list.stdout) as Array<{ workflowId: string; forkedFrom: string; summary: string }>;
      return runs.length > 0 ? runs : undefined;
    }, 'the fork in list');
    expect(listed).toEqual([expect.objectContaining({ workflowId: forkId, forkedFrom: origin.workflowId, summary: `fork of ${origin.workflowId} at step 2: Try the other way` })]);
  });

  test('clear errors: an unknown run, a step out of range, a run still running for resume', async () => {
    const unknown = await runCli(['fork', `nope-${suffix}`], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`No run with workflow id "nope-${suffix}"`);
    const badStep = await runCli(['fork', origin.workflowId, '--step', 'two'], env);
    expect(badStep.code).toBe(2);
    expect(badStep.stderr).toContain('--step must be a step number');
    const past = await runCli(['fork', origin.workflowId, '--step', '9', '--json'], env);
    expect(past.code).toBe(1);
    expect(past.stdout).toContain(`forkFrom.step: step 9 is past the origin's last step (5)`);
  });
});

test('resume refuses a run that is still running', async () => {
  const model = `open-${suffix}`;
  h.model.setScenario(model, [{ text: 'Cleaning.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] }]);
  const open = await h.start({ prompt: 'clean up', model, workspace: h.workspace({ 'build/x': 'x' }) }, `open-${suffix}`);
  try {
    const refused = await runCli(['resume', open.workflowId], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Run ${open.workflowId} is still running`);
  } finally {
    await open.terminate('test over');
  }
});
