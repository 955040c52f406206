import { temporal } from '@temporalio/proto';
import { collectEvents, streamedText } from '../support/events';
import { Harness } from '../support/harness';

/**
 * Following a run reads its stream without writing to its history: a run followed from its start
 * to its end has no update in its history, and no more events of any kind than the same run
 * nobody followed.
 */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const { EventType } = temporal.api.enums.v1;

async function kindsOf(workflowId: string): Promise<Map<string, number>> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const kinds = new Map<string, number>();
  for (const event of history.events ?? []) {
    const kind = EventType[event.eventType ?? 0] ?? 'unknown';
    // Signals from the model call's text batches depend on timing, not on the follower.
    if (kind !== 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED' && !kind.startsWith('EVENT_TYPE_WORKFLOW_TASK_')) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return kinds;
}

test('a followed run has no update events and the same history as one nobody followed', async () => {
  const script = [
    { chunks: ['Reading ', 'the file.'], chunkDelayMs: 100, toolCalls: [{ id: 'call_r', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { chunks: ['It says ', 'alpha.'], chunkDelayMs: 100 },
  ];
  h.model.setScenario('followed', script);
  h.model.setScenario('alone', script);
  const followed = await h.start({ prompt: 'read it', model: 'followed', workspace: h.workspace({ 'a.txt': 'alpha\n' }) });
  const events = await collectEvents(h.client, followed.workflowId);
  await followed.result();
  expect(streamedText(events)).toBe('Reading the file.It says alpha.');

  const alone = await h.start({ prompt: 'read it', model: 'alone', workspace: h.workspace({ 'a.txt': 'alpha\n' }) });
  await alone.result();

  const followedKinds = await kindsOf(followed.workflowId);
  expect(followedKinds.get('EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED')).toBeUndefined();
  expect(followedKinds).toEqual(await kindsOf(alone.workflowId));
}, 60_000);
