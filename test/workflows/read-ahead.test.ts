import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { Message } from '../../src/common/messages';
import { messagesQuery } from '../../src/common/contract';
import { tracingSinks } from '../../src/worker/tracing-sinks';
import { Harness } from '../support/harness';
import { toolResultsById } from '../support/tool-results';
import { localActivityTypes, scheduledActivityTypes } from '../support/history-activities';
import { readTestEnv } from '../support/test-env';

/**
 * A reply whose calls are all reads is read by its own model call, and the workflow takes the
 * results from the call's result: no local activity after it. A reply with anything else in it, a
 * deny rule against one of its calls, or a PreToolUse hook, and the reads run as local activities,
 * after the guard and the hooks, so that nothing they refuse is ever read.
 */
type History = temporal.api.history.v1.IHistory;

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

/** Every activity result of a history, as JSON. */
function activityResults(history: History): unknown[] {
  return (history.events ?? []).flatMap((e) => {
    const data = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    return data ? [JSON.parse(Buffer.from(data).toString()) as unknown] : [];
  });
}

const readAheadOf = (history: History) => activityResults(history).flatMap((r) => ((r as { readAhead?: unknown[] }).readAhead ? [(r as { readAhead: unknown[] }).readAhead] : []));
const historyBytes = (history: History) => Buffer.from(temporal.api.history.v1.History.encode(history).finish());

test('a reply of reads only is read by its model call: no local activity, the same results, and the history replays', async () => {
  const scenario = `read-ahead-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'g', name: 'glob', arguments: { pattern: '*.md' } }, { id: 'r', name: 'read_file', arguments: { file_path: 'notes.md' } }] },
    { toolCalls: [{ id: 's', name: 'grep', arguments: { pattern: 'needle' } }] },
    // Arguments the guard's check completes (offset's default): the read is of what the workflow would read.
    { toolCalls: [{ id: 'o', name: 'read_file', arguments: { file_path: 'notes.md', limit: 1 } }] },
    { text: 'Read.' },
  ]);
  const workspace = h.workspace({ 'notes.md': 'a needle in the notes\nsecond line\n' });
  const handle = await h.start({ prompt: 'read', model: scenario, workspace, permissionMode: 'default', stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Read.' });

  const results = toolResultsById(await handle.query<Message[]>(messagesQuery));
  expect(results.get('g')?.content).toContain('notes.md');
  expect(results.get('r')?.content).toContain('1: a needle in the notes');
  expect(results.get('s')?.content).toContain('a needle in the notes');
  expect(results.get('o')?.content).toContain('1: a needle in the notes');
  expect(results.get('o')?.content).not.toContain('second line');

  const history = await handle.fetchHistory();
  const reads = ['read_file', 'glob', 'grep'];
  expect(localActivityTypes(history.events).filter((t) => reads.includes(t))).toEqual([]);
  expect(scheduledActivityTypes(history.events).filter((t) => reads.includes(t))).toEqual([]);
  // Three model calls read ahead: the first two calls at once, then one each.
  expect(readAheadOf(history).map((read) => read.length)).toEqual([2, 1, 1]);
  await Worker.runReplayHistory({ workflowBundle: { codePath: readTestEnv().bundlePath }, sinks: tracingSinks(undefined) }, history, handle.workflowId);
});

test('a denied read beside an allowed one: neither is read ahead, and the denied file is nowhere in the history', async () => {
  const scenario = `read-ahead-deny-${Math.random()}`;
  const secret = 'the-denied-secret-8c1f';
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'ok', name: 'read_file', arguments: { file_path: 'notes.md' } }, { id: 'no', name: 'read_file', arguments: { file_path: 'secret.txt' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ 'notes.md': 'plain notes\n', 'secret.txt': `${secret}\n` });
  // bypass: the mode that asks nothing; the deny rule still holds.
  const handle = await h.start({ prompt: 'read', model: scenario, workspace, permissionMode: 'bypass', permissionRules: { deny: ['read_file(secret.txt)'] }, stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });

  const results = toolResultsById(await handle.query<Message[]>(messagesQuery));
  expect(results.get('ok')?.content).toContain('plain notes');
  expect(results.get('no')).toMatchObject({ is_error: true });
  const history = await handle.fetchHistory();
  expect(readAheadOf(history)).toEqual([]);
  expect(localActivityTypes(history.events)).toContain('read_file');
  expect(historyBytes(history).includes(secret)).toBe(false);
  expect(historyBytes(history).includes('plain notes')).toBe(true);
});

test('with a PreToolUse hook no read is read ahead: a read the hook blocks was never read', async () => {
  const scenario = `read-ahead-hook-${Math.random()}`;
  const secret = 'blocked-by-the-hook-51d2';
  h.model.setScenario(scenario, [{ toolCalls: [{ id: 'b', name: 'read_file', arguments: { file_path: 'private.txt' } }] }, { text: 'Done.' }]);
  const workspace = h.workspace({
    'private.txt': `${secret}\n`,
    '.bareagent/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'read_file', hooks: [{ type: 'command', command: "echo 'not that file' >&2; exit 2" }] }] } }),
  });
  const handle = await h.start({ prompt: 'read', model: scenario, workspace, permissionMode: 'bypass', trustWorkspaceSettings: true, stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  expect(toolResultsById(await handle.query<Message[]>(messagesQuery)).get('b')?.content).toContain('not that file');
  const history = await handle.fetchHistory();
  expect(readAheadOf(history)).toEqual([]);
  expect(historyBytes(history).includes(secret)).toBe(false);
});

test('a read after a write in one reply is not read ahead: it reads what the write left', async () => {
  const scenario = `read-ahead-mixed-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'w', name: 'write_file', arguments: { file_path: 'a.txt', content: 'written now\n' } }, { id: 'r', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { text: 'Done.' },
  ]);
  const handle = await h.start({ prompt: 'write then read', model: scenario, workspace: h.workspace({ 'a.txt': 'before\n' }), permissionMode: 'auto', stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  expect(toolResultsById(await handle.query<Message[]>(messagesQuery)).get('r')?.content).toContain('1: written now');
  const history = await handle.fetchHistory();
  expect(readAheadOf(history)).toEqual([]);
  expect(localActivityTypes(history.events)).toContain('read_file');
});
