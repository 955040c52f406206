import { existsSync } from 'node:fs';
import path from 'node:path';
import { type WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { messagesQuery, statusQuery, stepsQuery, userMessageSignal } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const lastUserTexts = (body: { messages: Array<{ role: string; content: unknown }> }) =>
  body.messages.filter((m) => m.role === 'user').map((m) => m.content);

test('a follow-up sent mid-run is taken at the next safe boundary and starts the next turn', async () => {
  h.model.setScenario('follow-mid', [
    { toolCalls: [{ id: 't1', name: 'bash', arguments: { command: 'sleep 1' } }] },
    { text: 'Also added tests, as you asked.' },
  ]);
  const handle = await h.start({ prompt: 'write code', model: 'follow-mid', workspace: h.workspace(), permissionMode: 'auto' });
  await waitFor(async () => ((await handle.query(statusQuery)).phase === 'running_tool' ? true : undefined), 'the tool to run');
  await handle.signal(userMessageSignal, { text: 'and add tests please' });
  expect(await handle.result()).toMatchObject({ text: 'Also added tests, as you asked.' });
  const messages = await handle.query(messagesQuery);
  expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user', 'assistant']);
  expect(messages[3]).toEqual({ role: 'user', content: 'and add tests please' });
  expect((await handle.query(stepsQuery)).map((s) => s.reason)).toContain('follow_up_taken');
});

test('after a final answer the run stays open for idleTimeout and takes a follow-up', async () => {
  h.model.setScenario('follow-idle', [
    { toolCalls: [{ id: 'j', name: 'background_run', arguments: { command: 'echo indexed', task_id: 'index' } }] },
    { toolCalls: [{ id: 's', name: 'bash', arguments: { command: 'sleep 1' } }] },
    { text: 'First answer.' },
    { text: 'Second answer, to the follow-up.' },
  ]);
  const handle = await h.start({ prompt: 'first question', model: 'follow-idle', workspace: h.workspace(), permissionMode: 'auto', idleTimeout: '3s', waitForJobs: false });
  await waitFor(async () => ((await handle.query(statusQuery)).phase === 'idle' ? true : undefined), 'the run to go idle');
  await handle.signal(userMessageSignal, { text: 'second question' });
  expect(await handle.result()).toMatchObject({ text: 'Second answer, to the follow-up.' });
  const messages = await handle.query(messagesQuery);
  const followUp = messages.findIndex((m) => m.content === 'second question');
  expect(followUp).toBeGreaterThan(0);
  const requests = h.model.requestsFor('follow-idle');
  expect(lastUserTexts(requests[3]?.body).at(-1)).toBe('second question');
});

test('the notification of a job is placed before a plain user message (the human question stays last)', async () => {
  h.model.setScenario('placement', [
    { toolCalls: [{ id: 'j', name: 'background_run', arguments: { command: 'echo built', task_id: 'build' } }] },
    { text: 'Started the build.' },
    { text: 'The build is done and I saw your question.' },
  ]);
  const handle = await h.start({ prompt: 'build it', model: 'placement', workspace: h.workspace(), permissionMode: 'auto', idleTimeout: '5s', waitForJobs: false });
  await waitFor(async () => ((await handle.query(statusQuery)).phase === 'idle' ? true : undefined), 'idle');
  await waitFor(async () => ((await handle.query(statusQuery)).backgroundJobs.length === 0 ? true : undefined), 'the job to finish');
  await handle.signal(userMessageSignal, { text: 'is it done?' });
  await handle.result();
  const messages = await handle.query(messagesQuery);
  const at = messages.findIndex((m) => m.content === 'is it done?');
  expect(messages[at - 1]?.role).toBe('system');
  expect(messages[at - 1]?.content).toContain('- Task build: done - built');
});

test('an acceptance check that fails injects its output and the loop goes on until it passes', async () => {
  h.model.setScenario('accept', [
    { text: 'Done, I think.' },
    { toolCalls: [{ id: 'w', name: 'write_file', arguments: { file_path: 'done.txt', content: 'ok' } }] },
    { text: 'Now really done.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'finish', model: 'accept', workspace, permissionMode: 'auto', acceptance: { command: 'test -f done.txt || { echo "done.txt is missing"; exit 1; }' } });
  expect(await handle.result()).toMatchObject({ text: 'Now really done.' });
  expect(existsSync(path.join(workspace, 'done.txt'))).toBe(true);
  const messages = await handle.query(messagesQuery);
  expect(messages[2]?.content).toMatch(/^The acceptance check `.*` failed \(1 of 3\); the task is not done yet:\nexit code 1\ndone.txt is missing/);
  expect(messages[2]?.content).toContain("Fix it with your tools: read the files involved, change them, and run `test -f done.txt");
  expect((await handle.query(stepsQuery)).map((s) => s.reason)).toEqual(['acceptance_failed', 'next_turn', 'stop:final_answer']);
});

test('an acceptance check that keeps failing stops the run within its bound', async () => {
  h.model.setScenario('never', () => ({ text: 'Done!' }));
  const handle = await h.start({ prompt: 'x', model: 'never', workspace: h.workspace(), acceptance: { command: 'exit 1', maxAttempts: 2 } });
  const error = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
  expect((error.cause as ApplicationFailure).type).toBe('AcceptanceFailed');
  expect(h.model.requestsFor('never')).toHaveLength(2);
});

test('output cut off by the token limit continues with a recovery prompt, at most 3 times', async () => {
  h.model.setScenario('cut', [
    { text: 'Part one', finishReason: 'length' },
    { text: 'part two.', finishReason: 'stop' },
  ]);
  const handle = await h.start({ prompt: 'long answer', model: 'cut', workspace: h.workspace() });
  // The result is the whole answer, not only its last piece.
  expect(await handle.result()).toMatchObject({ text: 'Part onepart two.', iterations: 2 });
  const messages = await handle.query(messagesQuery);
  expect(messages[2]?.content).toMatch(/^Your previous reply was cut off by the output token limit/);
  expect((await handle.query(stepsQuery))[0]).toMatchObject({ reason: 'output_truncated', detail: 'recovery 1 of 3 in this turn' });
});

test('truncation recoveries are counted per turn: each turn gets its own three', async () => {
  const cut = (text: string) => ({ text, finishReason: 'length' });
  h.model.setScenario('cut-per-turn', [
    cut('a'), cut('b'), cut('c'), { text: 'd' , toolCalls: [{ id: 't1', name: 'glob', arguments: { pattern: '*' } }] },
    cut('e'), cut('f'), cut('g'), { text: 'h.' },
  ]);
  const handle = await h.start({ prompt: 'long answers', model: 'cut-per-turn', workspace: h.workspace() });
  expect(await handle.result()).toMatchObject({ text: 'efgh.', iterations: 8 });
  const steps = await handle.query(stepsQuery);
  expect(steps.filter((step) => step.reason === 'output_truncated')).toHaveLength(6);
});

test('evidence_delta counts the results that brought something not seen before', async () => {
  h.model.setScenario('evidence', [
    { toolCalls: [{ id: 'e1', name: 'read_file', arguments: { file_path: 'a.txt' } }, { id: 'e2', name: 'read_file', arguments: { file_path: 'b.txt' } }] },
    { toolCalls: [{ id: 'e3', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { toolCalls: [{ id: 'e4', name: 'bash', arguments: { command: 'echo changed > a.txt' } }, { id: 'e5', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { text: 'Done.' },
  ]);
  const handle = await h.start({ prompt: 'look', model: 'evidence', workspace: h.workspace({ 'a.txt': 'one\n', 'b.txt': 'two\n' }), permissionMode: 'auto' });
  await handle.result();
  const steps = await handle.query(stepsQuery);
  // Two new results; the same read with the same content; a command's output and a changed file.
  expect(steps.map((step) => [step.reason, step.evidence_delta])).toEqual([
    ['next_turn', 2],
    ['next_turn', 0],
    ['next_turn', 2],
    ['stop:final_answer', 0],
  ]);
});
