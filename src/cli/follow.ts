import { eventsQuery } from '../common/contract';
import type { Client } from '@temporalio/client';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { EVENTS_TOPIC, type RunEvent } from '../common/events';
import { LeftRunning } from './left-running';
import { queryRun } from './query-run';

/** The events from an offset on, once the run closed: by default through a query any worker (or our own) answers. */
export type CatchUp = (fromOffset: number) => Promise<Array<{ offset: number; event: RunEvent }>>;

export type EventHandler = (event: RunEvent, offset: number) => void | Promise<void>;

/**
 * Streams a run's events from an offset until the run closes, following continue-as-new and
 * reconnecting after a lost connection (from the last offset seen, so nothing repeats). A run
 * can close between two polls: the `events` query then delivers what the last poll missed (for a
 * closed run, everything: its stream is not served once it closed).
 */
export async function followRun(
  client: Client,
  workflowId: string,
  onEvent: EventHandler,
  options: { fromOffset?: number; onReconnect?: (err: Error) => void; catchUp?: CatchUp } = {},
): Promise<number> {
  let next = options.fromOffset ?? 0;
  for (;;) {
    try {
      const stream = WorkflowStreamClient.create(client, workflowId);
      for await (const item of stream.subscribe<RunEvent>([EVENTS_TOPIC], next, { resultType: true })) {
        next = item.offset + 1;
        await onEvent(item.data, item.offset);
      }
      break;
    } catch (err) {
      // Not found, or the user left a question with Ctrl-C: nothing to reconnect to.
      if ((err as Error).name === 'WorkflowNotFoundError' || err instanceof LeftRunning) throw err;
      options.onReconnect?.(err as Error);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  const rest = await (options.catchUp ?? ((from) => queryRun(client, workflowId, eventsQuery, from)))(next).catch(() => []);
  for (const { offset, event } of rest) {
    next = offset + 1;
    await onEvent(event, offset);
  }
  return next;
}
