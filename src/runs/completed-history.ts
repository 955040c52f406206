import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const T = temporal.api.enums.v1.EventType;

/** Events a workflow task's commands write, right after its WorkflowTaskCompleted. */
const COMMAND_EVENTS = new Set<number>([
  T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  T.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED,
  T.EVENT_TYPE_TIMER_STARTED,
  T.EVENT_TYPE_TIMER_CANCELED,
  T.EVENT_TYPE_MARKER_RECORDED,
  T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
  T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
  T.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
  T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  T.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
  T.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED,
  T.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

/**
 * A run's history up to the end of its last completed workflow task: that task's command events
 * included, everything after them (events no workflow task has seen yet, a task started and not
 * finished) left out. Replaying it never runs workflow code past what a worker already ran, so a
 * replay asks for no activity and ends at once. Undefined when no task has completed yet.
 */
export function completedPrefix(events: HistoryEvent[]): HistoryEvent[] | undefined {
  let last = -1;
  events.forEach((event, i) => {
    if (event.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) last = i;
  });
  if (last < 0) return undefined;
  let end = last + 1;
  while (end < events.length && COMMAND_EVENTS.has(events[end]?.eventType ?? 0)) end++;
  return events.slice(0, end);
}
