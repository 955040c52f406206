import type { temporal } from '@temporalio/proto';
import { messagesQuery } from '../../src/common/contract';
import type { Message } from '../../src/common/messages';
import { collectEvents } from '../support/events';
import { Harness } from '../support/harness';

/**
 * A reply's consecutive read-only calls run at once; a call that may write waits for them, and a
 * read after it waits for the write. Results keep the reply's order in the history and on the
 * stream, and each call still goes through the guard.
 */
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

test('read-only calls of one reply are scheduled together, the write between them keeps its place, results come in the reply order', async () => {
  h.model.setScenario('parallel', [
    {
      toolCalls: [
        { id: 'p1', name: 'glob', arguments: { pattern: '*.md' } },
        { id: 'p2', name: 'grep', arguments: { pattern: 'needle' } },
        { id: 'p3', name: 'read_file', arguments: { file_path: 'secret.md' } },
        { id: 'p4', name: 'read_file', arguments: { file_path: 'notes.md' } },
        { id: 'p5', name: 'write_file', arguments: { file_path: 'b.md', content: 'changed\n' } },
        { id: 'p6', name: 'read_file', arguments: { file_path: 'b.md' } },
        { id: 'p7', name: 'read_file', arguments: { file_path: 'missing.md' } },
      ],
    },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ 'notes.md': 'a needle in the notes\n', 'b.md': 'before\n', 'secret.md': 'key\n' });
  // On an ordinary tool queue (the run's own), so that each read is an activity of its own in the history.
  const handle = await h.start({
    prompt: 'Read in parallel',
    model: 'parallel',
    workspace,
    permissionMode: 'auto',
    permissionRules: { deny: ['read_file(secret.md)'] },
    toolTaskQueue: h.taskQueue,
    checkpoints: false,
  });
  const streamed = collectEvents(h.client, handle.workflowId);
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  // The follower's last catch-up query ends before this test asks its own: two queries at once on a
  // run that just closed each need a worker to replay it, and under CI load one waited out its
  // deadline unanswered (sdk-core has had bugs of that kind). The CLI never queries a closed run
  // through a worker: it replays the history itself (src/runs/query-run.ts).
  const streamedEvents = await streamed;

  const messages: Message[] = await handle.query(messagesQuery);
  const results = messages[2]?.content as Array<{ tool_use_id: string; content: string; is_error: boolean }>;
  expect(results.map((r) => r.tool_use_id)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
  expect(results[2]).toMatchObject({ content: 'User denied.', is_error: true }); // the guard still decides each call
  expect(results[3]?.content).toContain('a needle in the notes');
  expect(results[5]?.content).toContain('changed'); // read after the write, not before it
  expect(results[6]?.is_error).toBe(true);

  // The history: glob, grep and read_file(notes.md) scheduled in one workflow task, before any of
  // them started; write_file only once all three completed; the two reads after it together again.
  const events = (await handle.fetchHistory()).events ?? [];
  const tools = new Set(['glob', 'grep', 'read_file', 'write_file']);
  const scheduled = events.filter((e: HistoryEvent) => tools.has(e.activityTaskScheduledEventAttributes?.activityType?.name ?? ''));
  expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)).toEqual(['glob', 'grep', 'read_file', 'write_file', 'read_file', 'read_file']);
  const ids = scheduled.map((e) => Number(e.eventId));
  const scheduledBy = scheduled.map((e) => Number(e.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId));
  expect(new Set(scheduledBy.slice(0, 3)).size).toBe(1);
  expect(scheduledBy[3]).toBeGreaterThan(scheduledBy[2]!);
  expect(new Set(scheduledBy.slice(4)).size).toBe(1);
  expect(scheduledBy[4]).toBeGreaterThan(scheduledBy[3]!);
  const completedOf = (scheduledId: number) => events.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === scheduledId);
  for (const first of ids.slice(0, 3)) expect(Number(completedOf(first)?.eventId)).toBeLessThan(ids[3]!);

  // The stream: every tool_result in the reply's order.
  const onStream = streamedEvents.filter((e) => e.type === 'tool_result').map((e) => (e as { id: string }).id);
  expect(onStream).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
});
