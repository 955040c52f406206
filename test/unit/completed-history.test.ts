import { temporal } from '@temporalio/proto';
import { completedPrefix } from '../../src/runs/completed-history';

const T = temporal.api.enums.v1.EventType;
const events = (...types: number[]): temporal.api.history.v1.IHistoryEvent[] => types.map((eventType) => ({ eventType }));

test('a history with no completed workflow task has nothing to replay', () => {
  expect(completedPrefix(events(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED))).toBeUndefined();
});

test('the cut keeps the last completed task and its commands, and drops what no task has seen', () => {
  const history = events(
    T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
    T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    T.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    T.EVENT_TYPE_MARKER_RECORDED,
    T.EVENT_TYPE_TIMER_STARTED,
    T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    T.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  );
  expect(completedPrefix(history)).toEqual(history.slice(0, 6));
});

test('a closed run keeps its closing event', () => {
  const history = events(
    T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
    T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    T.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  );
  expect(completedPrefix(history)).toHaveLength(5);
});
