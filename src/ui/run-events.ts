import type { Client } from '@temporalio/client';
import { runEventFeed, type OffsetEvent } from '../runs/run-event-feed';

export type { OffsetEvent } from '../runs/run-event-feed';

/**
 * A run's events from an offset until it closes or `signal` aborts, as the CLI's follower reads
 * them (src/runs/run-event-feed.ts: the `events` query, which leaves nothing in the run's history).
 * A run that does not exist ends the feed.
 */
export async function* runEvents(client: Client, workflowId: string, fromOffset: number, signal: AbortSignal): AsyncGenerator<OffsetEvent> {
  try {
    yield* runEventFeed(client, workflowId, fromOffset, { signal });
  } catch (err) {
    if ((err as Error).name !== 'WorkflowNotFoundError') throw err;
  }
}
