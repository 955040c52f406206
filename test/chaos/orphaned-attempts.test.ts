/**
 * A worker SIGKILLed while a model call is in flight, and a new worker started on the same machine:
 * the new worker fails the dead one's attempt at once (src/worker/orphaned-attempts.ts), so the call
 * is asked again without waiting out its heartbeat timeout, and the run's next workflow task goes
 * to the task queue every worker polls, not the dead worker's sticky queue. Both are read from the
 * history, not from a clock.
 */
import { temporal } from '@temporalio/proto';
import type { AgentRunResult } from '../../src/common/wire';
import { workerIdentity } from '../../src/connection/worker-identity';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';

let h: Harness;
let dying: WorkerProcess | undefined;
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(async () => {
  await dying?.kill();
  await h.close();
});

test("a new worker fails the attempt its SIGKILLed predecessor held, and resets the run's sticky queue", async () => {
  const scenario = 'orphaned-model-call';
  h.model.setScenario(scenario, (_body, index) => (index === 0 ? { hang: true } : { text: 'Answered after the lost worker.' }));
  dying = await WorkerProcess.start(h);
  const handle = await h.start({ prompt: 'one answer', model: scenario, stream: false, workspace: h.workspace() });
  await waitFor(async () => h.model.requestsFor(scenario)[0], 'the first model request', 60_000);
  const deadPid = dying.child.pid;
  await dying.kill();

  await h.startWorker();
  const result = (await handle.result()) as AgentRunResult;
  expect(result).toMatchObject({ text: 'Answered after the lost worker.', stopReason: 'final_answer' });
  expect(h.model.requestsFor(scenario)).toHaveLength(2);

  const events = (await handle.fetchHistory()).events ?? [];
  const retried = events.find((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 0) === 2)?.activityTaskStartedEventAttributes;
  // The second attempt started after the first was failed by the new worker, not timed out.
  expect(retried?.lastFailure?.applicationFailureInfo?.type).toBe('WorkerExited');
  expect(retried?.lastFailure?.message).toContain(`(${deadPid}@`);
  expect(retried?.identity).toBe(workerIdentity());
  const completedAt = events.findIndex((e) => e.activityTaskCompletedEventAttributes);
  const nextTask = events.slice(completedAt).find((e) => e.workflowTaskScheduledEventAttributes)?.workflowTaskScheduledEventAttributes;
  expect(nextTask?.taskQueue?.kind).toBe(temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL);
});
