import { ActivityCancellationType, proxyActivities, proxyLocalActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * Model calls: no limit on attempts, since a lost worker (heartbeat timeout, a killed or drained
 * worker, the start-to-close timeout of a worker that went silent) says nothing about the provider.
 * The activity counts its own provider failures across attempts and makes the fourth final
 * (src/activities/model/provider-attempts.ts), with its own backoff or the provider's
 * `retry-after`. This policy's interval is only for lost workers: the heartbeat timeout has
 * already waited 10 s, so the backoff stays short (1, 2, 4, then 5 s). A worker that starts on the
 * same machine fails a dead one's attempt at once, the first such retry without the interval
 * (src/worker/orphaned-attempts.ts): a worker that dies on every attempt, restarted by its
 * supervisor, still costs at most one model call per restart plus 5 s.
 */
export const modelActivities = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds' }, // no maximumAttempts: unlimited
});

/** read_file, glob, grep and write_file (same content twice is the same file): safe to run again. */
export const repeatableTools = proxyActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * edit_file and bash are not idempotent: once they may have started they are never run again
 * (at most once). A lost worker shows up as an error result the model can act on.
 */
export const onceTools = proxyActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  heartbeatTimeout: '20 seconds',
  retry: { maximumAttempts: 1 },
  // A cancelled run waits until the command's process group is really killed.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/**
 * read_file, glob and grep as local activities: they only read, so running one again after a lost
 * worker is harmless, and a local activity runs inside the workflow task that asked for it. That
 * saves one workflow task and three history events per tool call. Only for runs whose tools run
 * on the run's own workers (no `toolTaskQueue`): a local activity runs on the workflow's worker.
 */
export const localReadTools = proxyLocalActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * What a new run reads from its workspace before its first turn (workspace settings, AGENTS.md, MCP
 * tools), as local activities side by side when the run's own worker holds the workspace: the reads
 * and the first model call in one workflow task, where ordinary activities one after the other took four.
 */
const localRunStart = proxyLocalActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

type RunStartRead = 'listMcpTools' | 'readProjectInstructions' | 'readHooks' | 'readWorkspaceSettings' | 'readRunEnvironment' | 'readSourceFile';
type Read<K extends RunStartRead> = { executeWithOptions(options: object, args: Parameters<Activities[K]>): Promise<Awaited<ReturnType<Activities[K]>>> };

/**
 * One run-start read on the worker that holds the workspace: a local activity when that is the
 * run's own worker, otherwise `remote`'s activity, on `toolTaskQueue` when the run names one.
 */
export function readAtRunStart<K extends RunStartRead>(
  name: K,
  where: { local: boolean; remote: ActivityInterfaceFor<Activities>; toolTaskQueue: string | undefined },
  summary: string,
  args: Parameters<Activities[K]>,
): Promise<Awaited<ReturnType<Activities[K]>>> {
  if (where.local) return (localRunStart[name] as unknown as Read<K>).executeWithOptions({ summary }, args);
  return (where.remote[name] as unknown as Read<K>).executeWithOptions({ summary, ...(where.toolTaskQueue ? { taskQueue: where.toolTaskQueue } : {}) }, args);
}

/** The run-start listing of MCP servers: it only reads, and reports a failing server as a value. */
export const mcpListing = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * An MCP call the server annotates read-only or idempotent may run again after a lost worker, as
 * often as workers are lost: the activity reports every failure of the server or the call as a
 * result (never an activity failure), so only a lost or silent worker is retried here.
 */
export const mcpRepeatable = proxyActivities<Activities>({
  startToCloseTimeout: '6 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds' }, // no maximumAttempts: unlimited
});

/** Any other MCP call may have changed something on the other side: at most once, like bash. */
export const mcpOnce = proxyActivities<Activities>({
  startToCloseTimeout: '6 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { maximumAttempts: 1 },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/**
 * Telling a human that a run waits: retried with backoff (about 15 s of waits over 5 attempts, each
 * at most 10 s), then given up. The run never waits for it.
 */
export const notifying = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
});

/** Reading the project's instructions at run start: a read, safe to repeat. */
export const instructionReading = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/** Reading the file a draft turn rewrites: a read, safe to repeat. */
export const sourceReading = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/** Reading a fork's origin: a few queries, safe to repeat; an unknown origin or step fails at once (non-retryable). */
export const forkActivities = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * A workspace checkpoint: idempotent (the same files give the same tree; the ref moves only for
 * a new one), so it is retried, on another worker too. It heartbeats while git works: a worker
 * killed in the middle is noticed in 15 s, not at the end of the timeout.
 */
export const checkpointing = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * The same checkpoint as a local activity, for runs whose own worker holds the workspace: it runs
 * inside the workflow task that follows the tool round, with the next model call, so a
 * checkpoint adds no workflow task and one marker instead of three events. A lost worker's task
 * times out and the next worker takes the checkpoint again (it is idempotent).
 */
export const localCheckpointing = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/** The stall watchdog's question to the server about the run's pending activities: a read, on the run's own workers. */
export const progressReading = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * A member's reservation from its tree's root (src/activities/tree/reserve-tree-budget.ts): a
 * local activity, so the round trip adds no activity task and one marker to the member's history.
 * The root answers at once or, when other calls hold what this one needs, once they end: model
 * calls are minutes at most. A retry joins the same update (its id is the reservation's).
 */
export const treeReserving = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' }, // no maximumAttempts: a root briefly unreachable is waited for
});
