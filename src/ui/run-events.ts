import type { Client } from '@temporalio/client';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { eventsQuery } from '../common/contract';
import { EVENTS_TOPIC, type RunEvent } from '../common/events';
import { queryRun } from '../cli/query-run';

export interface OffsetEvent {
  offset: number;
  event: RunEvent;
}

/**
 * A run's events from an offset until it closes or `signal` aborts, like the CLI's follower
 * (src/cli/follow.ts): the workflow stream (following continue-as-new), a reconnect from the last
 * offset after a lost connection, and the `events` query for what came after the last poll of a
 * run that closed. Aborting cancels the open poll too (the caller runs this under
 * `client.withAbortSignal`), so a closed browser tab leaves nothing waiting.
 */
export async function* runEvents(client: Client, workflowId: string, fromOffset: number, signal: AbortSignal): AsyncGenerator<OffsetEvent> {
  let next = fromOffset;
  while (!signal.aborted) {
    try {
      const stream = WorkflowStreamClient.create(client, workflowId);
      for await (const item of stream.subscribe<RunEvent>([EVENTS_TOPIC], next, { resultType: true })) {
        next = item.offset + 1;
        yield { offset: item.offset, event: item.data };
        if (signal.aborted) return;
      }
      break;
    } catch (err) {
      if (signal.aborted || (err as Error).name === 'WorkflowNotFoundError') return;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  if (signal.aborted) return;
  const rest = await queryRun(client, workflowId, eventsQuery, next).catch(() => []);
  for (const item of rest) yield item;
}
