import type { Client } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { hasLiveWorker } from './live-pollers';
import type { ReplayQuery } from './replay-reader';

/**
 * Queries a run, open or closed, with or without a worker on its task queue, without ever
 * touching its workflow tasks. An open run a live worker serves is asked the usual way (that
 * worker answers); otherwise, or when that worker does not answer within a second (a worker that
 * died a minute ago is still listed), the run's history is replayed in this process and the query
 * answered from the replayed state (`replay-reader.ts`). Nothing polls the run's task queue, so a
 * reader never takes (and fails) a task its worker should take, and never counts as a worker.
 */
export async function queryRun<T, A extends unknown[]>(client: Client, workflowId: string, definition: QueryDefinition<T, A>, ...args: A): Promise<T> {
  const [answer] = await queryRunMany(client, workflowId, [{ name: definition.name, args }]);
  return answer as T;
}

/** Several queries of one run at once: one replay answers them all when a replay is needed. */
export async function queryRunMany(client: Client, workflowId: string, queries: ReplayQuery[]): Promise<unknown[]> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const open = description.status.name === 'RUNNING';
  // The server lists a stopped worker's pollers for minutes: for a closed run, never trust them.
  if (open && (await hasLiveWorker(client, client.options.namespace, description.taskQueue).catch(() => false))) {
    try {
      return await client.withDeadline(Date.now() + LIVE_WORKER_MS, () => Promise.all(queries.map((query) => handle.query(query.name, ...query.args))));
    } catch {
      // Too slow, or the listed worker went away mid-query ("Failed to query Workflow"): the
      // replay below answers the same, and a query the workflow itself rejects fails there too.
    }
  }
  return replayReader().replayQueries(client, workflowId, queries);
}

/**
 * The replay loads the worker SDK (a second of CPU): only a read that needs it pays for it, not
 * every `bareagent status` of an open run its worker answers.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const replayReader = () => require('./replay-reader') as typeof import('./replay-reader');

const LIVE_WORKER_MS = 1000;
