import type { Client } from '@temporalio/client';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { UiEnv } from './access';
import { questionCard } from './answer-forms';
import { changeFor } from './conversation';
import { frameFor } from './conversation-html';
import { runEvents } from './run-events';

const HEARTBEAT_MS = 20_000;

/**
 * GET /runs/:id/events: the run's events as Server-Sent Events, each a frame of escaped HTML
 * (src/ui/conversation-html.ts) with the event's offset as its id. From `?after=N` (the last
 * offset the page holds), or from `Last-Event-ID` when the browser reconnects by itself; an
 * `end` event says the run closed.
 */
export function eventStreamRoute(client: Client) {
  return (c: Context<UiEnv>) => {
    const workflowId = c.req.param('id') ?? '';
    const lastId = c.req.header('last-event-id') ?? c.req.query('after') ?? '-1';
    const after = /^-?\d+$/.test(lastId) ? Number(lastId) : -1;
    const access = c.get('access');
    const csrf = access.kind === 'session' ? access.csrf : undefined;
    return streamSSE(c, async (stream) => {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      const heartbeat = setInterval(() => void stream.write(': ping\n\n').catch(() => abort.abort()), HEARTBEAT_MS);
      try {
        await client.withAbortSignal(abort.signal, async () => {
          for await (const { offset, event } of runEvents(client, workflowId, after + 1, abort.signal)) {
            const change = changeFor(event);
            if (!change) continue;
            const frame = frameFor(change, csrf === undefined ? undefined : (asked) => questionCard(workflowId, asked, csrf).toString());
            await stream.writeSSE({ id: String(offset), data: JSON.stringify(frame) });
          }
        });
        if (!abort.signal.aborted) await stream.writeSSE({ event: 'end', data: '{}' });
      } catch (err) {
        if (!abort.signal.aborted) await stream.writeSSE({ event: 'problem', data: JSON.stringify({ message: (err as Error).message }) });
      } finally {
        clearInterval(heartbeat);
      }
    });
  };
}
