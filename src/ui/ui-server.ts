import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import type { Client } from '@temporalio/client';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { agUiRoute, type StartRun } from '../ag-ui/ag-ui-route';
import { accessGuard, type UiEnv } from './access';
import { allowedHosts } from './allowed-hosts';
import { registerAnswers, type RunPageFor } from './answer-routes';
import { eventStreamRoute } from './event-stream-route';
import { inboxPage } from './inbox-page';
import { loadMarkdown } from './markdown-html';
import { h, page } from './page-html';
import { readRun, waitingQuestions } from './run-reads';
import { runPage } from './run-page';
import { Sessions } from './session';
import type { UiSettings } from '../connection/ui-settings';
import { visible } from './visible-text';

export interface UiServerOptions extends UiSettings {
  client: Client;
  token: string;
  taskQueue: string;
  temporalUiPort: number;
  /** Starts a run for `POST /ag-ui` after the checks `bareagent run` makes. */
  startRun: StartRun;
  log?: (line: string) => void;
}

export interface UiServer {
  /** The page's own address (loopback form when it listens on one). */
  url: string;
  close(): Promise<void>;
}

const STATIC: Record<string, string> = { 'app.css': 'text/css; charset=utf-8', 'run.js': 'text/javascript; charset=utf-8' };
/** A form answer is a few fields; anything larger is not one. */
const MAX_BODY = 64 * 1024;
/** An AG-UI input carries the client's whole conversation. */
const MAX_AG_UI_BODY = 4 * 1024 * 1024;
const tooLarge = (what: string) => ({ onError: (c: Context) => c.text(`Payload Too Large: ${what}\n`, 413) });

/** The approvers' page: the inbox at `/`, a run at `/runs/:id`, its live events, the answers. */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const log = options.log ?? (() => undefined);
  const { client } = options;
  await loadMarkdown();
  const namespace = client.options.namespace;
  const sessions = new Sessions(options.token);
  let hosts = new Set<string>();
  const files = new Map(Object.keys(STATIC).map((name) => [name, readFileSync(path.join(__dirname, 'static', name))]));

  const app = new Hono<UiEnv>();
  const formLimit = bodyLimit({ maxSize: MAX_BODY, ...tooLarge('a form answer is small') });
  const agUiLimit = bodyLimit({ maxSize: MAX_AG_UI_BODY, ...tooLarge('an AG-UI input is at most 4 MB') });
  app.use('*', (c, next) => (c.req.path === '/ag-ui' ? agUiLimit(c, next) : formLimit(c, next)));
  app.use('*', accessGuard({ sessions, hosts: () => hosts, ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}), log }));
  app.get('/static/:name', (c) => {
    const name = c.req.param('name');
    const body = files.get(name);
    if (!body) return c.notFound();
    c.header('Cache-Control', 'private, max-age=300');
    return c.body(new Uint8Array(body), 200, { 'Content-Type': STATIC[name] as string });
  });
  app.get('/', async (c) => c.html(inboxPage(await waitingQuestions(client), csrfOf(c.get('access')))));
  const runPageFor: RunPageFor = async (c, workflowId, notice) =>
    runPage(await readRun(client, workflowId), { csrf: csrfOf(c.get('access')), namespace, temporalUiPort: options.temporalUiPort, ...(notice ? { notice } : {}) });
  app.get('/runs/:id', async (c) => c.html(await runPageFor(c, c.req.param('id'))));
  app.get('/runs/:id/events', eventStreamRoute(client));
  registerAnswers(app, client, options.taskQueue, runPageFor);
  app.post('/ag-ui', agUiRoute({ client, startRun: options.startRun, hosts: () => hosts }));
  app.onError((err, c) => {
    const notFound = err.name === 'WorkflowNotFoundError';
    log(`error on ${c.req.method} ${c.req.path}: ${err.message}`);
    const body = h`<h1>${notFound ? 'No such run' : 'Failed'}</h1><p class="outcome failed">${visible(err.message)}</p><p><a href="/">Inbox</a></p>`;
    return c.html(page({ title: notFound ? 'No such run' : 'Failed', body }), notFound ? 404 : 502);
  });

  const server = createAdaptorServer({ fetch: app.fetch, hostname: options.host, port: options.port }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  hosts = allowedHosts(address, options.publicUrl);
  const shownHost = ['0.0.0.0', '::'].includes(address.address) ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function csrfOf(access: UiEnv['Variables']['access']): string {
  return access.kind === 'session' ? access.csrf : '';
}
