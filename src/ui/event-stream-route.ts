import type { Client } from '@temporalio/client';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { UiEnv } from './access';
import { checkpointsQuery } from '../common/contract';
import { queryRun } from '../runs/query-run';
import { questionCard } from './answer-forms';
import { changeFor, SaidBefore } from './conversation';
import { frameFor } from './conversation-html';
import { runDiff } from './run-diff';
import { runEvents } from './run-events';
import { visible } from './visible-text';

const HEARTBEAT_MS = 20_000;

/**
 * GET /runs/:id/events: the run's events as Server-Sent Events, each a frame of escaped HTML
 * (src/ui/conversation-html.ts) with the event's offset as its id. From `?after=N` (the last
 * offset the page holds), or from `Last-Event-ID` when the browser reconnects by itself; an
 * `end` event says the run closed. A question's card comes with its context like the page's (the
 * agent's words before it, the changes so far); the final answer takes the place of the text it
 * streamed as (`answer`), rendered.
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
          // From the first event when the page holds none, else only what follows: words before a
          // question the page rendered already are on its card.
          const said = new SaidBefore();
          for await (const { offset, event } of runEvents(client, workflowId, after + 1, abort.signal)) {
            said.see(event);
            const change = changeFor(event);
            if (!change) continue;
            let context: Parameters<typeof questionCard>[3] | undefined;
            if (event.type === 'permission_request' && csrf !== undefined) {
              const checkpoints = await queryRun(client, workflowId, checkpointsQuery).catch(() => undefined);
              const before = said.before(event.requestId);
              context = { workflowId, diff: await runDiff(checkpoints), ...(before ? { said: before } : {}) };
            }
            const frame = frameFor(change, csrf === undefined ? undefined : (asked) => questionCard(workflowId, asked, csrf, context).toString());
            // The page drops the text the answer streamed as, if that is its last: shown once, rendered.
            if (event.type === 'final') frame.answer = visible(event.text).trim();
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
