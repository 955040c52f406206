import type { Client } from '@temporalio/client';
import type { RunEvent } from '../common/events';
import { runEventFeed, type CatchUp } from '../runs/run-event-feed';

export type { CatchUp } from '../runs/run-event-feed';

export type EventHandler = (event: RunEvent, offset: number) => void | Promise<void>;

/**
 * Streams a run's events from an offset until the run closes, following continue-as-new and
 * reading again after a lost connection (from the last offset seen, so nothing repeats); see
 * `run-event-feed.ts`. Returns the offset after the last event.
 */
export async function followRun(
  client: Client,
  workflowId: string,
  onEvent: EventHandler,
  options: { fromOffset?: number; onReconnect?: (err: Error) => void; catchUp?: CatchUp } = {},
): Promise<number> {
  let next = options.fromOffset ?? 0;
  for await (const { offset, event } of runEventFeed(client, workflowId, next, options)) {
    next = offset + 1;
    await onEvent(event, offset);
  }
  return next;
}
