import type { Client } from '@temporalio/client';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { EVENTS_TOPIC, type RunEvent } from '../common/events';

export type Decided = Extract<RunEvent, { type: 'permission_decided' }>;

/**
 * Resolves once the question is no longer open: its `permission_decided` event (whoever answered:
 * the page, another shell, a webhook's command, the raw update, the timeout), or the run's stream
 * ending (the run closed). Reconnects after a lost connection; gives up when `stop` aborts.
 */
export async function decidedElsewhere(client: Client, workflowId: string, requestId: string, fromOffset: number, stop: AbortSignal): Promise<Decided | 'closed' | undefined> {
  let next = fromOffset;
  while (!stop.aborted) {
    try {
      const stream = WorkflowStreamClient.create(client, workflowId);
      for await (const item of stream.subscribe<RunEvent>([EVENTS_TOPIC], next, { resultType: true })) {
        if (stop.aborted) return undefined;
        next = item.offset + 1;
        if (item.data.type === 'permission_decided' && item.data.requestId === requestId) return item.data;
      }
      return 'closed';
    } catch {
      if (stop.aborted) return undefined;
      // A closed run's stream is not served: the question closed with it.
      const running = await client.workflow
        .getHandle(workflowId)
        .describe()
        .then((d) => d.status.name === 'RUNNING', () => true);
      if (!running) return 'closed';
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  return undefined;
}
