import type { Client } from '@temporalio/client';
import { eventsQuery } from '../common/contract';
import type { RunEvent } from '../common/events';
import { queryRun } from './query-run';

export interface OffsetEvent {
  offset: number;
  event: RunEvent;
}

/** The events from an offset on, once the run closed: by default through a query any worker (or our own) answers. */
export type CatchUp = (fromOffset: number) => Promise<OffsetEvent[]>;

export interface FeedOptions {
  signal?: AbortSignal;
  /** Called when a read failed and is tried again from the last offset seen. */
  onReconnect?: (err: Error) => void;
  catchUp?: CatchUp;
}

/** After new events, read again this soon (the model's text arrives in batches of 200 ms to 1 s). */
const BUSY_MS = 150;
/** A run that waits (for a model, a human, a job) is read at most this rarely. */
const IDLE_MS = 1_000;
const RETRY_MS = 1_000;
/** A live worker answers a query in milliseconds; one that is gone is not waited for long. */
const QUERY_DEADLINE_MS = 5_000;

/**
 * A run's events from an offset until it closes, following continue-as-new (the events query of
 * the workflow id goes to the chain's newest run, whose stream carries the offsets on).
 *
 * Read with the `events` query, never with the stream's poll update: a query leaves no event in
 * the run's history and takes no workflow task, where each poll update added an accepted and a
 * completed event and a workflow task of three more, one set per batch a follower received. The
 * close is watched with the server's long poll for the close event (`result()`), which touches no
 * worker either; what came after the last read is then read once more (replayed here when no
 * worker serves the run any more), so nothing is missed or repeated.
 */
export async function* runEventFeed(client: Client, workflowId: string, fromOffset: number, options: FeedOptions = {}): AsyncGenerator<OffsetEvent> {
  const { signal } = options;
  let next = fromOffset;
  let closed = false;
  let notFound: Error | undefined;
  const watcher = new AbortController();
  const stopWatching = () => watcher.abort();
  signal?.addEventListener('abort', stopWatching, { once: true });
  const closeSeen = client
    .withAbortSignal(watcher.signal, () => client.workflow.getHandle(workflowId).result())
    .then(
      () => undefined,
      (err: Error) => err,
    )
    .then((err) => {
      if (watcher.signal.aborted) return;
      closed = true;
      // Not found is said by the reads below; any other rejection is the run's own outcome.
      if (err?.name === 'WorkflowNotFoundError') notFound = err;
    });
  let wake: (() => void) | undefined;
  void closeSeen.then(() => wake?.());
  try {
    let delay = BUSY_MS;
    while (!signal?.aborted && !closed) {
      let batch: OffsetEvent[] | undefined;
      try {
        batch = await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => client.workflow.getHandle(workflowId).query(eventsQuery, next));
      } catch (err) {
        if ((err as Error).name === 'WorkflowNotFoundError') throw err;
        if (signal?.aborted || closed) break;
        options.onReconnect?.(err as Error);
        delay = RETRY_MS;
      }
      for (const item of batch ?? []) {
        if (item.offset < next) continue;
        next = item.offset + 1;
        yield item;
        if (signal?.aborted) return;
      }
      if (batch) delay = batch.length > 0 ? BUSY_MS : Math.min(delay * 2, IDLE_MS);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, delay);
        wake = done;
        signal?.addEventListener('abort', done, { once: true });
      });
      wake = undefined;
    }
    if (signal?.aborted) return;
    if (notFound) throw notFound;
    const rest = await (options.catchUp ?? ((from) => queryRun(client, workflowId, eventsQuery, from)))(next).catch(() => []);
    for (const item of rest) {
      if (item.offset < next) continue;
      next = item.offset + 1;
      yield item;
      if (signal?.aborted) return;
    }
  } finally {
    signal?.removeEventListener('abort', stopWatching);
    watcher.abort();
  }
}
