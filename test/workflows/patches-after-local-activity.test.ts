import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { messagesQuery } from '../../src/common/contract';
import { tracingSinks } from '../../src/worker/tracing-sinks';
import { Harness } from '../support/harness';
import { eventLines } from '../support/history-activities';

/**
 * A local activity that finishes while the worker answers a query (or heartbeats its workflow task)
 * has its marker sent with that task, and the code after it runs in the next task. CI recorded such
 * a history: the acceptance-files patch asked after the run-start checkpoint was then written a task
 * later than replay looked for it. Here a real run's history is given that shape at every local
 * activity marker followed by more commands, and must replay.
 */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

interface JsonEvent {
  eventId: string;
  eventType: string;
  eventTime?: string;
  [attributes: string]: unknown;
}

const COMMAND_EVENTS = new Set([
  'EVENT_TYPE_MARKER_RECORDED',
  'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
  'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
  'EVENT_TYPE_TIMER_STARTED',
  'EVENT_TYPE_TIMER_CANCELED',
  'EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED',
  'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
  'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED',
]);
const isLocalActivityMarker = (e: JsonEvent) => (e.markerRecordedEventAttributes as { markerName?: string } | undefined)?.markerName === 'core_local_activity';

/** Every event id a field names (`scheduledEventId`, `workflowTaskCompletedEventId`, ...), renumbered: each names an earlier event. */
function renumber(value: unknown, ids: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renumber(v, ids));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, /EventId$/.test(key) && typeof v === 'string' && ids.has(v) ? ids.get(v) : renumber(v, ids)]));
}

/** The history with a workflow task (scheduled, started, completed) after each local activity marker that more commands of its task follow. */
function splitAfterLocalActivities(events: JsonEvent[]): { events: JsonEvent[]; splits: number } {
  const out: JsonEvent[] = [];
  const ids = new Map<string, string>();
  let lastScheduled: JsonEvent | undefined;
  let lastCompleted: JsonEvent | undefined;
  let completedId: string | undefined;
  let splits = 0;
  const push = (e: JsonEvent) => {
    const id = String(out.length + 1);
    out.push({ ...e, eventId: id });
    return id;
  };
  events.forEach((event, i) => {
    if (event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED') lastScheduled = event;
    const attributesKey = Object.keys(event).find((k) => k.endsWith('EventAttributes'))!;
    let attributes = renumber(event[attributesKey], ids) as { workflowTaskCompletedEventId?: string };
    // A command after a split belongs to the task that split added.
    if (COMMAND_EVENTS.has(event.eventType) && completedId && attributes.workflowTaskCompletedEventId) attributes = { ...attributes, workflowTaskCompletedEventId: completedId };
    const id = push({ ...event, [attributesKey]: attributes });
    ids.set(event.eventId, id);
    if (event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED') {
      lastCompleted = event;
      completedId = undefined;
    }
    const next = events[i + 1];
    if (!isLocalActivityMarker(event) || !next || !COMMAND_EVENTS.has(next.eventType) || !lastScheduled || !lastCompleted) return;
    splits += 1;
    const time = { eventTime: event.eventTime };
    const scheduled = push({ ...time, eventId: '', eventType: 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED', workflowTaskScheduledEventAttributes: lastScheduled.workflowTaskScheduledEventAttributes });
    const started = push({ ...time, eventId: '', eventType: 'EVENT_TYPE_WORKFLOW_TASK_STARTED', workflowTaskStartedEventAttributes: { scheduledEventId: scheduled, identity: 'split', requestId: `split-${splits}` } });
    const completed = lastCompleted.workflowTaskCompletedEventAttributes as object;
    completedId = push({ ...time, eventId: '', eventType: 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED', workflowTaskCompletedEventAttributes: { ...completed, scheduledEventId: scheduled, startedEventId: started } });
  });
  return { events: out, splits };
}

test('a run whose local activities finish a workflow task early still replays its patches', async () => {
  const stub = "function double(x) {\n  throw new Error('not implemented');\n}\n\nmodule.exports = { double };\n";
  const check = "const assert = require('node:assert');\nassert.strictEqual(require('./solution.js').double(2), 4);\nconsole.log('ok');\n";
  h.model.setScenario('patches-split', [
    { text: 'Here it is:\n```javascript\nfunction double(x) {\n  return x * 2;\n}\n```\n' },
    { toolCalls: [{ id: 'w-test', name: 'write_file', arguments: { file_path: 'test.js', content: "console.log('ok');\n" } }] },
    { toolCalls: [{ id: 'w-code', name: 'write_file', arguments: { file_path: 'solution.js', content: 'exports.double = (x) => x * 2;\n' } }] },
    { toolCalls: [{ id: 'f1', name: 'final_answer', arguments: { answer: 'Done.' } }] },
  ]);
  const workspace = h.workspace({ 'solution.js': stub, 'test.js': check });
  const handle = await h.start({ prompt: 'Complete double in solution.js; node test.js checks it.', model: 'patches-split', workspace, profile: 'small-local', permissionMode: 'bypass', acceptance: { command: 'node test.js' } });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  // The run took each patched branch: the draft, the refused write of the check, the syntax gate.
  const results = JSON.stringify(await handle.query(messagesQuery));
  expect(results).toContain('draft-1');
  expect(results).toContain("is part of this run's acceptance check");

  const recorded = JSON.parse(historyToJSON(await handle.fetchHistory())) as { events: JsonEvent[] };
  const patchMarkers = recorded.events.filter((e) => (e.markerRecordedEventAttributes as { markerName?: string } | undefined)?.markerName === 'core_patch');
  expect(patchMarkers.length).toBeGreaterThanOrEqual(3);
  const split = splitAfterLocalActivities(recorded.events);
  expect(split.splits).toBeGreaterThanOrEqual(2);
  const history = historyFromJSON({ events: split.events });
  await expect(
    Worker.runReplayHistory({ workflowBundle: { codePath: h.env.bundlePath }, sinks: tracingSinks(undefined) }, history, handle.workflowId).catch((err: Error) => {
      throw new Error(`${err.message}\n${eventLines(history.events)}`);
    }),
  ).resolves.toBeUndefined();
});
