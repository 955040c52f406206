import type { Client } from '@temporalio/client';
import { workerExited } from '../connection/worker-identity';

/** Enough of a `PollerInfo` from `describeTaskQueue` to judge it (protobuf Timestamp, Long seconds). */
export interface PollerSeen {
  identity?: string | null;
  lastAccessTime?: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null;
}

/** Identity prefix of the worker `bareagent run` starts in its own process: it goes away with that process. */
export const IN_PROCESS_WORKER_PREFIX = 'bareagent-run/';

/**
 * The server lists a poller for minutes after its worker stopped. `lastAccessTime` is when a poll
 * began, and an idle worker's long poll lasts about a minute (measured on the dev server: ages
 * climb to ~60 s, then drop), so a poller seen longer ago than this is gone.
 */
export const LIVE_POLLER_MAX_AGE_MS = 70_000;

/**
 * Whether a listed poller is a worker to rely on: recently seen, and not another `bareagent run`'s
 * in-process worker (it stops when that command ends). `localPidGone` answers for `pid@host`
 * identities of this machine. In doubt, not alive: the caller then starts its own worker.
 */
export function isLivePoller(
  poller: PollerSeen,
  now: number,
  options: { maxAgeMs?: number; localPidGone?: (identity: string) => boolean } = {},
): boolean {
  const identity = poller.identity ?? '';
  if (identity.startsWith(IN_PROCESS_WORKER_PREFIX)) return false;
  if (options.localPidGone?.(identity)) return false;
  const seconds = poller.lastAccessTime?.seconds;
  if (seconds === undefined || seconds === null) return false;
  const seenAt = (typeof seconds === 'number' ? seconds : seconds.toNumber()) * 1000 + (poller.lastAccessTime?.nanos ?? 0) / 1e6;
  return now - seenAt <= (options.maxAgeMs ?? LIVE_POLLER_MAX_AGE_MS);
}

/**
 * True when a worker that stays polls the task queue (then no in-process worker is needed). The
 * server keeps listing stopped pollers for minutes, so only recently seen ones count.
 */
export async function hasLiveWorker(client: Client, namespace: string, taskQueue: string, now = Date.now()): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 1, // workflow task queue
  });
  return (response.pollers ?? []).some((poller) => isLivePoller(poller, now, { localPidGone }));
}

/** A listed worker of this machine whose process has exited (src/connection/worker-identity.ts). */
function localPidGone(identity: string): boolean {
  return workerExited(identity, { sure: false });
}
