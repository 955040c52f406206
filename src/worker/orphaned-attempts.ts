/**
 * When a worker starts: the activity attempts that a worker of this machine held when its process
 * died (a crash, a kill, a deploy that did not drain) are failed at once, so the runs go on now,
 * not when each attempt's heartbeat timeout passes (10 s for a model call). Only the activities
 * that are run again after a lost worker anyway are failed this way, with the same outcome the
 * timeout would give: the model call (asked again, as after any lost worker) and the workspace
 * checkpoints (idempotent). A command, an edit or an MCP call that may have run keeps its timeout,
 * whose failure the loop reports to the model as "may have run" (src/workflows/may-have-run.ts).
 * Only attempts whose worker is surely gone are touched: its identity names this machine's boot
 * and pid namespace and a pid that no longer exists (src/connection/worker-identity.ts).
 *
 * What the server says here is not the agent's to write: identities come from the workers that
 * polled, and only `agentRun` runs on this task queue are looked at, so a workflow of the user's
 * whose activity completes asynchronously is never failed by this.
 */
import type { WorkflowService } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { workerExited } from '../connection/worker-identity';

/** The activities of an `agentRun` that are run again after a lost worker whatever happened (src/workflows/activity-proxies.ts). */
const RUN_AGAIN_AFTER_LOSS = new Set(['callModel', 'checkpointWorkspace', 'restoreWorkspace']);
/** At most this many open runs are looked at on a start: the rest wait for their timeouts. */
const MAX_RUNS = 2_000;
const PAGE_SIZE = 200;
/** Describe calls in flight at once: a start with many parked runs costs the server little at a time. */
const CONCURRENCY = 4;

const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

export interface OrphanedAttempt {
  workflowId: string;
  activityId: string;
  activityType: string;
  workerIdentity: string;
}

/** Fails the attempts of exited workers among this task queue's open runs; returns what it failed. */
export async function failOrphanedAttempts(
  service: WorkflowService,
  options: { namespace: string; taskQueue: string; identity: string },
): Promise<OrphanedAttempt[]> {
  // A task queue name is the operator's, but it goes into a query: one that would need escaping is skipped.
  if (!/^[\w.:/@-]+$/.test(options.taskQueue)) return [];
  const query = `TaskQueue = '${options.taskQueue}' AND ExecutionStatus = 'Running' AND WorkflowType = 'agentRun'`;
  const runs: Array<{ workflowId: string; runId: string }> = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listWorkflowExecutions({ namespace: options.namespace, query, pageSize: PAGE_SIZE, ...(nextPageToken ? { nextPageToken } : {}) });
    for (const run of page.executions ?? []) {
      if (run.execution?.workflowId && run.execution.runId) runs.push({ workflowId: run.execution.workflowId, runId: run.execution.runId });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken && runs.length < MAX_RUNS);

  const failed: OrphanedAttempt[] = [];
  const next = runs.slice(0, MAX_RUNS);
  const describeInTurn = async () => {
    for (let run = next.shift(); run; run = next.shift()) failed.push(...(await failRunOrphans(service, options, run)));
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, describeInTurn));
  return failed;
}

async function failRunOrphans(
  service: WorkflowService,
  options: { namespace: string; identity: string },
  execution: { workflowId: string; runId: string },
): Promise<OrphanedAttempt[]> {
  const described = await service.describeWorkflowExecution({ namespace: options.namespace, execution });
  const orphans = (described.pendingActivities ?? []).filter(
    (activity) =>
      activity.state === STARTED &&
      RUN_AGAIN_AFTER_LOSS.has(activity.activityType?.name ?? '') &&
      !!activity.lastWorkerIdentity && activity.lastWorkerIdentity !== options.identity && workerExited(activity.lastWorkerIdentity, { sure: true }),
  );
  const failed: OrphanedAttempt[] = [];
  for (const activity of orphans) {
    const workerIdentity = activity.lastWorkerIdentity ?? '';
    try {
      await service.respondActivityTaskFailedById({
        namespace: options.namespace,
        workflowId: execution.workflowId,
        runId: execution.runId,
        activityId: activity.activityId ?? '',
        identity: options.identity,
        failure: {
          message: `the worker running this attempt (${workerIdentity}) exited`,
          source: 'bareagent',
          applicationFailureInfo: { type: 'WorkerExited', nonRetryable: false },
        },
      });
      failed.push({ workflowId: execution.workflowId, activityId: activity.activityId ?? '', activityType: activity.activityType?.name ?? '', workerIdentity });
    } catch {
      // Completed, retried or timed out meanwhile: nothing is left to fail.
    }
  }
  // The run's next workflow task would otherwise wait on the dead worker's sticky queue (its
  // schedule-to-start timeout) before it goes to the task queue every worker polls.
  if (failed.length > 0) await service.resetStickyTaskQueue({ namespace: options.namespace, execution }).catch(() => undefined);
  return failed;
}
