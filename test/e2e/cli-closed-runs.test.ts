import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { queryRun } from '../../src/runs/query-run';
import { statusQuery, stepsQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';
import { runCli } from '../support/cli';
import { waitFor } from '../support/wait-for';

/**
 * A finished run is readable after every worker stopped (as after `npm run demo`).
 * The server still lists the stopped worker's pollers for minutes: the CLI must not trust them.
 */
let h: Harness;
let env: Record<string, string>;
let handle: WorkflowHandle;
const suffix = randomUUID().slice(0, 8);
const LONG_OUTPUT = Array.from({ length: 40 }, (_, i) => `line ${i} of the notes`).join('\n');

beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
  env = {
    TEMPORAL_ADDRESS: h.env.address,
    BAREAGENT_TASK_QUEUE: h.taskQueue,
    BAREAGENT_UI_PORT: String(h.env.uiPort),
    BAREAGENT_WORKFLOW_BUNDLE: h.env.bundlePath,
  };
  const model = `closed-${suffix}`;
  h.model.setScenario(model, [
    { text: 'Reading.', toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { file_path: 'notes.txt' } }] },
    { text: 'CLOSED final answer.' },
  ]);
  handle = await h.start({ prompt: 'read the notes (closed)', model, workspace: h.workspace({ 'notes.txt': LONG_OUTPUT }) }, `closed-${suffix}`);
  await handle.result();
  await h.stopWorkers();
});
afterAll(() => h.close());

test('status, history and messages answer for a closed run with no worker running', async () => {
  const timed = async (args: string[]) => {
    const started = Date.now();
    const result = await runCli(args, env);
    console.log(`bareagent ${args.join(' ')}: ${Date.now() - started} ms`);
    return result;
  };
  const status = await timed(['status', handle.workflowId, '--json']);
  const history = await timed(['history', handle.workflowId, '--json']);
  const messages = await timed(['messages', handle.workflowId]);
  const json = await timed(['messages', handle.workflowId, '--json']);
  expect(status.stderr).toBe('');
  expect(status.code).toBe(0);
  expect(JSON.parse(status.stdout)).toMatchObject({ workflowId: handle.workflowId, phase: 'completed', iteration: 2 });

  expect(history.code).toBe(0);
  expect(history.stdout.trimStart()).toMatch(/^\[/); // only the JSON, so that `| jq` works
  const steps = JSON.parse(history.stdout) as Array<{ reason: string; tools: string[] }>;
  expect(steps[0]).toMatchObject({ reason: 'next_turn', tools: ['read_file notes.txt'] });
  expect(steps.at(-1)?.reason).toMatch(/^stop/);

  expect(messages.code).toBe(0);
  expect(messages.stdout).toContain('user: read the notes (closed)');
  expect(messages.stdout).toContain('assistant: Reading.');
  expect(messages.stdout).toContain('⏺ read_file notes.txt');
  expect(messages.stdout).toContain('line 0 of the notes');
  expect(messages.stdout).not.toContain('line 39 of the notes');
  expect(messages.stdout).toMatch(/… \(\d+ more characters\)/);
  expect(messages.stdout).toContain('assistant: CLOSED final answer.');

  expect(json.code).toBe(0);
  const raw = JSON.parse(json.stdout) as Array<{ role: string; content: unknown }>;
  expect(raw[0]).toEqual({ role: 'user', content: 'read the notes (closed)' });
  expect(JSON.stringify(raw)).toContain('line 39 of the notes');
  expect(raw.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'CLOSED final answer.' }] });
});

test('follow replays a closed run with no worker running', async () => {
  const followed = await runCli(['follow', handle.workflowId, '--json'], env);
  expect(followed.code).toBe(0);
  const lines = followed.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type?: string; status?: string });
  expect(lines.some((line) => line.type === 'tool_result')).toBe(true);
  expect(lines.at(-1)).toMatchObject({ status: 'completed' });
});

test('a query on a closed run loads the cached workflow bundle instead of bundling again', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-home-'));
  const saved = { ...process.env };
  Object.assign(process.env, { TEMPORAL_ADDRESS: h.env.address, BAREAGENT_HOME: home });
  delete process.env.BAREAGENT_WORKFLOW_BUNDLE;
  try {
    // The first query bundles the workflow code into BAREAGENT_HOME/cache (seconds); later ones load it.
    await queryRun(h.client, handle.workflowId, statusQuery);
    const cache = path.join(home, 'cache');
    const bundled = readdirSync(cache).map((name) => [name, statSync(path.join(cache, name)).mtimeMs]);
    const started = Date.now();
    const steps = await queryRun(h.client, handle.workflowId, stepsQuery);
    expect(steps.length).toBeGreaterThanOrEqual(2);
    // Timing is a benchmark figure (README: about 0.6 s on an idle machine), not a test bound.
    console.log(`query on a closed run, no worker: ${Date.now() - started} ms`);
    expect(readdirSync(cache).map((name) => [name, statSync(path.join(cache, name)).mtimeMs])).toEqual(bundled);
    expect(bundled).toHaveLength(1);
  } finally {
    process.env = saved;
  }
});

test('several readers at once each start their own query worker and all answer', async () => {
  const started = Date.now();
  const results = await Promise.all(['status', 'history', 'messages', 'messages'].map((command) => runCli([command, handle.workflowId, '--json'], env)));
  console.log(`4 concurrent readers: ${Date.now() - started} ms`);
  expect(results.map((r) => [r.code, r.stderr])).toEqual([0, 0, 0, 0].map((code) => [code, '']));
});

test('status answers for an open run whose worker stopped a moment ago (its poller still listed)', async () => {
  const model = `open-${suffix}`;
  h.model.setScenario(model, [{ text: 'Cleaning.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] }, { text: 'Done.' }]);
  await h.startWorker();
  const open = await h.start({ prompt: 'clean up (open)', model, workspace: h.workspace({ 'build/x': 'x' }) }, `open-${suffix}`);
  await waitFor(async () => ((await open.query(statusQuery)).pendingPermissions.length === 1 ? true : undefined), 'the permission question');
  await h.stopWorkers();
  const started = Date.now();
  const status = await runCli(['status', open.workflowId, '--json'], env);
  console.log(`status of an open run, worker gone: ${Date.now() - started} ms`);
  expect(status.stderr).toBe('');
  expect(JSON.parse(status.stdout)).toMatchObject({ workflowId: open.workflowId, pendingPermissions: [{ toolCallId: 'call_rm' }] });
  await open.terminate('test over');
});
