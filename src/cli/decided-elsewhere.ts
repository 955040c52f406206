import type { Client } from '@temporalio/client';
import type { RunEvent } from '../common/events';
import { runEventFeed } from '../runs/run-event-feed';

export type Decided = Extract<RunEvent, { type: 'permission_decided' }>;

/**
 * Resolves once the question is no longer open: its `permission_decided` event (whoever answered:
 * the page, another shell, a webhook's command, the raw update, the timeout), or the run closing.
 * Gives up when `stop` aborts.
 */
export async function decidedElsewhere(client: Client, workflowId: string, requestId: string, fromOffset: number, stop: AbortSignal): Promise<Decided | 'closed' | undefined> {
  try {
    for await (const { event } of runEventFeed(client, workflowId, fromOffset, { signal: stop })) {
      if (event.type === 'permission_decided' && event.requestId === requestId) return event;
    }
  } catch {
    // Not found: nothing will ever answer here; the question closes with the prompt.
  }
  return stop.aborted ? undefined : 'closed';
}
