import type { Client } from '@temporalio/client';

/** How long a new run may wait for its first workflow task to be picked up before we say so. */
export const NO_WORKER_WARNING_MS = 5_000;

/**
 * After `afterMs`, says so once if no worker has picked up the run's first workflow task yet
 * (no WorkflowTaskStarted in its history), and how to start one. Returns a function that cancels it.
 */
export function warnWhenNoWorker(
  client: Client,
  workflowId: string,
  taskQueue: string,
  log: (line: string) => void,
  afterMs = NO_WORKER_WARNING_MS,
): () => void {
  let cancelled = false;
  const timer = setTimeout(() => {
    void pickedUp(client, workflowId).then((yes) => {
      if (yes || cancelled) return;
      log(
        `No worker has picked up ${workflowId} after ${Math.round(afterMs / 1000)} s on task queue "${taskQueue}".\n` +
          `  Start one in another shell: BAREAGENT_TASK_QUEUE=${taskQueue} npm run worker  (or: bareagent worker)`,
      );
    });
  }, afterMs);
  timer.unref();
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}

async function pickedUp(client: Client, workflowId: string): Promise<boolean> {
  const response = await client.workflowService
    .getWorkflowExecutionHistory({ namespace: client.options.namespace, execution: { workflowId }, maximumPageSize: 20 })
    .catch(() => undefined);
  // Cannot tell (connection trouble): stay quiet, the follower reports it.
  if (!response) return true;
  return (response.history?.events ?? []).some((event) => event.workflowTaskStartedEventAttributes);
}
