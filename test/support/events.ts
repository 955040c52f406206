import type { Client } from '@temporalio/client';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { EVENTS_TOPIC, type RunEvent } from '../../src/common/events';
import { eventsQuery } from '../../src/common/contract';

/**
 * Follows a run's stream from offset 0 until it closes, then catches up through the `events`
 * query (a run can close between two polls); resolves with every event, in order.
 */
export async function collectEvents(client: Client, workflowId: string): Promise<RunEvent[]> {
  const stream = WorkflowStreamClient.create(client, workflowId);
  const events: RunEvent[] = [];
  let next = 0;
  for await (const item of stream.subscribe<RunEvent>([EVENTS_TOPIC], 0, { resultType: true, pollCooldown: 0 })) {
    events.push(item.data);
    next = item.offset + 1;
  }
  const rest = await client.workflow.getHandle(workflowId).query(eventsQuery, next);
  return [...events, ...rest.map((r) => r.event)];
}

export function streamedText(events: RunEvent[]): string {
  let text = '';
  for (const event of events) {
    if (event.type === 'attempt_restart') text = '';
    if (event.type === 'text') text += event.delta;
  }
  return text;
}
