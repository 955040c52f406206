import type { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createToolWorker } from '../../src/worker/create-worker';
import { tracingSinks } from '../../src/worker/tracing-sinks';
import { Harness } from '../support/harness';
import { readTestEnv } from '../support/test-env';
import { localActivityTypes, scheduledActivityTypes } from '../support/history-activities';

/**
 * read_file, glob and grep never cost a workflow task of their own: read ahead by the model call
 * when a reply holds nothing else, else local activities inside the workflow task that asked for
 * them. Their results reach the model as before; write and command tools stay ordinary
 * activities. A new run's start reads (MCP tools, AGENTS.md, hooks) run side by side as local
 * activities, with the first model call in the same task.
 */
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const READS = 6;

const workflowTasks = (events: HistoryEvent[]) => events.filter((e) => e.workflowTaskCompletedEventAttributes).length;

test('read tools run inside the workflow task, one per tool-only iteration, and their results reach the model', async () => {
  h.model.setScenario('local-reads', [
    { toolCalls: [{ id: 'g', name: 'glob', arguments: { pattern: '*.md' } }] },
    { toolCalls: [{ id: 's', name: 'grep', arguments: { pattern: 'needle' } }] },
    ...Array.from({ length: READS - 2 }, (_, i) => ({ toolCalls: [{ id: `r${i}`, name: 'read_file', arguments: { file_path: 'notes.md' } }] })),
    { toolCalls: [{ id: 'w', name: 'write_file', arguments: { file_path: 'out.txt', content: 'x' } }] },
    { text: 'Read everything.' },
  ]);
  const workspace = h.workspace({ 'notes.md': 'a needle in the notes\n' });
  const handle = await h.start({ prompt: 'read', model: 'local-reads', workspace, permissionMode: 'auto', stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Read everything.', iterations: READS + 2 });

  const requests = h.model.requestsFor('local-reads');
  const lastToolResult = (i: number) => {
    const messages = (requests[i]!.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    return JSON.stringify(messages.filter((m) => m.role === 'tool').at(-1)?.content);
  };
  expect(lastToolResult(1)).toContain('notes.md'); // glob
  expect(lastToolResult(2)).toContain('a needle in the notes'); // grep
  expect(lastToolResult(3)).toContain('a needle in the notes'); // read_file

  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = scheduledActivityTypes(events);
  expect(scheduled.filter((type) => ['read_file', 'glob', 'grep'].includes(type))).toEqual([]);
  expect(scheduled).toContain('write_file');
  // The run's start reads its workspace settings side by side (recorded as each finished), then the tools in the model's order.
  const local = localActivityTypes(events);
  // With no MCP server anywhere, nothing is listed; the environment is read for the default system prompt.
  expect(local.slice(0, 3).sort()).toEqual(['readProjectInstructions', 'readRunEnvironment', 'readWorkspaceSettings']);
  // Each reply here is reads only, so its model call read them (test/workflows/read-ahead.test.ts):
  // no local activity for them. Step 0 is taken before the first round that may write; the
  // write's own checkpoint is taken inside the write_file activity: no local activity after it.
  expect(local.slice(3)).toEqual(['checkpointWorkspace']);
  // Ordinary activities one after the other took 19 workflow tasks here: the run's start (4) and
  // two per tool iteration (model result → tool, tool result → model). Now the start takes one
  // with its first model call (1), one per read (6), the write (2) and the answer (1).
  expect(workflowTasks(events)).toBe(1 + READS + 2 + 1);
  // The history replays, whatever order the side-by-side reads finished in.
  await Worker.runReplayHistory({ workflowBundle: { codePath: readTestEnv().bundlePath }, sinks: tracingSinks(undefined) }, await handle.fetchHistory(), handle.workflowId);
});

test('with toolTaskQueue a read tool stays an activity on that queue: the run\'s own worker may not hold the workspace', async () => {
  // Covered end to end by tool-task-queue.test.ts; here only the command the workflow gives.
  const toolQueue = `${h.taskQueue}-reads-elsewhere`;
  h.model.setScenario('remote-reads', [{ toolCalls: [{ id: 'r', name: 'read_file', arguments: { file_path: 'notes.md' } }] }, { text: 'ok' }]);
  const connection = await NativeConnection.connect({ address: h.env.address });
  try {
    const toolWorker = await createToolWorker({ connection, namespace: 'default', taskQueue: toolQueue });
    const handle = await h.start({ prompt: 'read', model: 'remote-reads', workspace: h.workspace({ 'notes.md': 'far away\n' }), permissionMode: 'auto', toolTaskQueue: toolQueue });
    await toolWorker.runUntil(handle.result());
    const events = (await handle.fetchHistory()).events ?? [];
    const read = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'read_file');
    expect(read?.activityTaskScheduledEventAttributes?.taskQueue?.name).toBe(toolQueue);
    expect(localActivityTypes(events)).toEqual([]);
    expect(JSON.stringify(h.model.requestsFor('remote-reads')[1]!.body)).toContain('far away');
  } finally {
    await connection.close();
  }
});
