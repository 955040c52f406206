import type { Client } from '@temporalio/client';
import { followRun, type CatchUp } from '../../src/cli/follow';
import { eventsQuery } from '../../src/common/contract';
import type { RunEvent } from '../../src/common/events';

/**
 * Follows a run's stream from offset 0 until it closes, as `bareagent follow` does: a poll (an
 * update) that fails around a continue-as-new is asked again from the last offset, and what the
 * last poll missed comes from the `events` query. Resolves with every event, in order.
 */
export async function collectEvents(client: Client, workflowId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  await followRun(client, workflowId, (event) => void events.push(event), { catchUp: catchUpThrough(client, workflowId) });
  return events;
}

/** A follower's catch-up through the run's own server (a test may run its own), where a harness worker answers the `events` query. */
export function catchUpThrough(client: Client, workflowId: string): CatchUp {
  return (from) => client.workflow.getHandle(workflowId).query(eventsQuery, from);
}

export function streamedText(events: RunEvent[]): string {
  let text = '';
  for (const event of events) {
    if (event.type === 'attempt_restart') text = '';
    if (event.type === 'text') text += event.delta;
  }
  return text;
}
