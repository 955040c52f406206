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
import { isGrpcServiceError, type WorkflowService } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { workerExited } from '../connection/worker-identity';

/** The activities of an `agentRun` that are run again after a lost worker whatever happened (src/workflows/activity-proxies.ts). */
const RUN_AGAIN_AFTER_LOSS = new Set(['callModel', 'checkpointWorkspace', 'restoreWorkspace']);
/** At most this many open runs are looked at on a start: the rest wait for their timeouts. */
const MAX_RUNS = 2_000;
const PAGE_SIZE = 200;
/** Describe calls in flight at once: a start with many parked runs costs the server little at a time. */
const CONCURRENCY = 4;

/** Set while a run waits for an approval or an answer (src/workflows/human-channel.ts). */
const WAITING = 'BareAgentWaitingForHuman';

/** gRPC's code for a query naming an attribute the namespace does not have. */
const INVALID_ARGUMENT = 3;

/** The least delay the server takes as one of its own (a zero duration means "none given"). */
const RETRY_NOW = { nanos: 1_000_000 };

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
  const runs = await openRunsToCheck(service, options);
  const failed: OrphanedAttempt[] = [];
  const describeInTurn = async () => {
    for (let run = runs.shift(); run; run = runs.shift()) failed.push(...(await failRunOrphans(service, options, run)));
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, describeInTurn));
  return failed;
}

/**
 * The open `agentRun` runs of the task queue that may hold an attempt, at most `MAX_RUNS`. A run
 * parked on a human holds none (it waits in the workflow, not in an activity), so it is not
 * described: a queue with a thousand runs awaiting approval costs a start one list call, not a
 * thousand describes. A run that never set the attribute (not yet at its first task) is kept:
 * SQL visibility reads `!= true` as unknown for it, hence the `IS NULL`. Where the namespace does
 * not know the attribute (a server whose operator did not register BareAgent's attributes), every
 * open run is looked at, as before the filter.
 */
export async function openRunsToCheck(
  service: WorkflowService,
  options: { namespace: string; taskQueue: string },
): Promise<Array<{ workflowId: string; runId: string }>> {
  // A task queue name is the operator's, but it goes into a query: one that would need escaping is skipped.
  if (!/^[\w.:/@-]+$/.test(options.taskQueue)) return [];
  const open = `TaskQueue = '${options.taskQueue}' AND ExecutionStatus = 'Running' AND WorkflowType = 'agentRun'`;
  try {
    return await listRuns(service, options.namespace, `${open} AND (${WAITING} IS NULL OR ${WAITING} = false)`);
  } catch (err) {
    if (!isGrpcServiceError(err) || err.code !== INVALID_ARGUMENT) throw err;
    return listRuns(service, options.namespace, open);
  }
}

async function listRuns(service: WorkflowService, namespace: string, query: string): Promise<Array<{ workflowId: string; runId: string }>> {
  const runs: Array<{ workflowId: string; runId: string }> = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listWorkflowExecutions({ namespace, query, pageSize: PAGE_SIZE, ...(nextPageToken ? { nextPageToken } : {}) });
    for (const run of page.executions ?? []) {
      if (run.execution?.workflowId && run.execution.runId) runs.push({ workflowId: run.execution.workflowId, runId: run.execution.runId });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken && runs.length < MAX_RUNS);
  return runs.slice(0, MAX_RUNS);
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
          // A first loss is retried now rather than after the policy's first interval; a run whose
          // attempts keep losing their workers keeps the policy's growing backoff.
          applicationFailureInfo: { type: 'WorkerExited', nonRetryable: false, ...((activity.attempt ?? 1) <= 1 ? { nextRetryDelay: RETRY_NOW } : {}) },
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
