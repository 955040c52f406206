/**
 * The worker's own network, judged by effect: a loopback "canary" HTTP server counts every request
 * it gets. MCP `url` servers (from the input and from `.bareagent/mcp.json`, in every permission
 * mode), webhooks, redirects and the sandbox's allowHosts proxy never reach it, until the operator
 * allows loopback with BAREAGENT_WORKER_EGRESS_ALLOW; then the same connection gets through.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { realpathSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { egressFetch } from '../../src/egress/egress-fetch';
import { EgressRefused, setEgressResolver } from '../../src/egress/resolve-allowed';
import { resetSandboxState } from '../../src/sandbox/describe-sandbox';
import { runShell } from '../../src/sandbox/shell';
import { permissionDecisionSignal, statusQuery } from '../../src/common/contract';
import type { RunStatus } from '../../src/common/wire';
import { Harness } from '../support/harness';
import { pendingRequest, requestIdFor, waitFor } from '../support/wait-for';

const ALLOW = 'BAREAGENT_WORKER_EGRESS_ALLOW';
const BIG_ERROR = `server-error-body ${'x'.repeat(10_000)}`;

interface Canary {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

/** Answers 500 with a 10 KB body (an MCP server's error page), or redirects when asked to. */
async function canary(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(BIG_ERROR)): Promise<Canary> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let h: Harness;
let target: Canary;
beforeAll(async () => {
  delete process.env[ALLOW];
  target = await canary();
  h = await Harness.create();
  await h.startWorker();
}, 60_000);
afterEach(() => {
  delete process.env[ALLOW];
  setEgressResolver(undefined);
});
afterAll(async () => {
  await h.close();
  await target.close();
});

const url = (port: number, where: string) => `http://127.0.0.1:${port}/${where}`;

/** A run that answers at once, with one MCP url server in its input and one in the workspace's mcp.json. */
async function runWithServers(mode: string, where: string): Promise<RunStatus> {
  const scenario = `egress-${Math.random()}`;
  h.model.setScenario(scenario, [{ text: 'Done.' }]);
  const workspace = h.workspace({ '.bareagent/mcp.json': JSON.stringify({ mcpServers: { fromfile: { url: url(target.port, `file-${where}`) } } }) });
  const handle = await h.start({
    prompt: 'Answer',
    model: scenario,
    workspace,
    stream: false,
    permissionMode: mode,
    sandbox: { network: 'none' },
    mcpServers: { frominput: { url: url(target.port, `input-${where}`) } },
    // The starter vouches for the workspace's servers (no run-start question): what holds is the egress policy alone.
    trustWorkspaceSettings: true,
  });
  await handle.result();
  return handle.query(statusQuery);
}

const MODES = ['default', 'auto', 'plan', 'bypass'];

test('MCP url servers on loopback, from the input and from .bareagent/mcp.json, are refused in every mode; the canary gets nothing', async () => {
  const statuses = await Promise.all(MODES.map((mode) => runWithServers(mode, mode)));
  expect(target.hits).toEqual([]);
  for (const status of statuses) {
    const servers = status.mcpServers ?? [];
    expect(servers.map((s) => s.name).sort()).toEqual(['fromfile', 'frominput']);
    for (const server of servers) expect(server.error).toMatch(/does not connect to 127\.0\.0\.1.*loopback.*BAREAGENT_WORKER_EGRESS_ALLOW/s);
  }
}, 60_000);

test('with the operator allowing loopback, the same servers are reached, and their error bodies reach the run capped at 2 KB', async () => {
  process.env[ALLOW] = '127.0.0.1/32';
  const status = await runWithServers('plan', 'allowed');
  expect(target.hits.some((hit) => hit.includes('/input-allowed'))).toBe(true);
  expect(target.hits.some((hit) => hit.includes('/file-allowed'))).toBe(true);
  const errors = (status.mcpServers ?? []).map((s) => s.error ?? '');
  expect(errors).toHaveLength(2);
  for (const error of errors) {
    expect(error).toContain('server-error-body');
    expect(error.length).toBeLessThan(2200);
  }
  target.hits.length = 0;
}, 60_000);

/** A run whose bash call asks (default mode): its webhook is told, the test then denies. */
async function askingWithWebhook(webhook: string): Promise<WorkflowHandle> {
  const scenario = `egress-hook-${Math.random()}`;
  h.model.setScenario(scenario, [{ toolCalls: [{ id: 'ask1', name: 'bash', arguments: { command: 'touch x' } }] }, { text: 'Done.' }]);
  const handle = await h.start({ prompt: 'Touch', model: scenario, workspace: h.workspace(), stream: false, notify: { webhook } });
  await pendingRequest(handle);
  return handle;
}

async function notifyFailures(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).map((e) => e.activityTaskFailedEventAttributes?.failure?.message ?? '').filter(Boolean);
}

test('a webhook on loopback is refused for good (no retries), the canary gets nothing; allowed by the operator, it is delivered', async () => {
  const hook = await canary((_req, res) => res.writeHead(200).end('ok'));
  try {
    const refused = await askingWithWebhook(url(hook.port, 'hook'));
    const failures = await waitFor(async () => ((await notifyFailures(refused)).length ? notifyFailures(refused) : undefined), 'the refused notification');
    expect(failures[0]).toMatch(/does not connect to 127\.0\.0\.1/);
    await refused.signal(permissionDecisionSignal, { requestId: await requestIdFor(refused, 'ask1'), decision: 'deny' });
    await refused.result();
    expect(hook.hits).toEqual([]);

    process.env[ALLOW] = '127.0.0.1';
    const allowed = await askingWithWebhook(url(hook.port, 'hook'));
    await waitFor(async () => (hook.hits.length ? true : undefined), 'the allowed notification');
    await allowed.signal(permissionDecisionSignal, { requestId: await requestIdFor(allowed, 'ask1'), decision: 'deny' });
    await allowed.result();
    expect(hook.hits).toEqual(['POST /hook']);
  } finally {
    await hook.close();
  }
}, 60_000);

test('a redirect from an allowed server to loopback is refused: the check holds on every hop', async () => {
  const hits: string[] = [];
  const redirector = await canary((_req, res) => res.writeHead(307, { location: url(target.port, 'after-redirect') }).end());
  try {
    // The operator allowed this one name; where it sends the request is checked again.
    process.env[ALLOW] = 'redirector.test';
    setEgressResolver(async (host) => (host === 'redirector.test' ? [{ address: '127.0.0.1', family: 4 }] : []));
    const sent = egressFetch()(`http://redirector.test:${redirector.port}/start`, { method: 'POST', body: '{}' });
    await expect(sent).rejects.toThrow(EgressRefused);
    expect(redirector.hits).toEqual(['POST /start']);
    expect(target.hits).toEqual(hits);
  } finally {
    await redirector.close();
  }
});

describe('the allowHosts proxy checks the address a name resolves to', () => {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'bareagent-egress-ws-')));
  const saved = process.env.BAREAGENT_SANDBOX_MAX_NETWORK;
  beforeAll(() => {
    process.env.BAREAGENT_SANDBOX_MAX_NETWORK = 'full';
    resetSandboxState();
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.BAREAGENT_SANDBOX_MAX_NETWORK;
    else process.env.BAREAGENT_SANDBOX_MAX_NETWORK = saved;
    resetSandboxState();
  });

  const curl = (host: string) =>
    runShell(`curl -s -m 5 -w ' http=%{http_code}\\n' http://${host}:${target.port}/plain; curl -s -m 5 -p -o /dev/null -w 'tunnel=%{http_connect}\\n' http://${host}:${target.port}/tunnel`, {
      workspace,
      sandbox: { network: { allowHosts: [`${host}:${target.port}`] }, readOnlyPaths: [], writableWorkspace: true },
      timeoutMs: 20_000,
      maxChars: 100_000,
    });

  test('localhost, and a name that resolves to 127.0.0.1, are on the list but reach nothing; allowed by the operator, they answer', async () => {
    setEgressResolver(async (host) => (host === 'canary.example' ? [{ address: '127.0.0.1', family: 4 }] : []));
    for (const host of ['localhost', 'canary.example']) {
      const refused = await curl(host);
      expect(refused.output).toContain('http=403');
      expect(refused.output).toContain('tunnel=403');
    }
    expect(target.hits).toEqual([]);

    process.env[ALLOW] = '127.0.0.0/8,::1/128';
    const allowed = await curl('canary.example');
    expect(allowed.output).toContain('server-error-body');
    expect(allowed.output).toContain('tunnel=200');
    expect(target.hits).toContain('GET /plain');
    target.hits.length = 0;
  }, 60_000);

  test('with no socat (the Node relay), the allow-list works the same: refused names stay refused, allowed ones answer', async () => {
    process.env.BAREAGENT_SANDBOX_RELAY = 'node';
    resetSandboxState();
    try {
      delete process.env[ALLOW];
      setEgressResolver(async (host) => (host === 'canary.example' ? [{ address: '127.0.0.1', family: 4 }] : []));
      const refused = await curl('canary.example');
      expect(refused.output).toContain('http=403');
      expect(target.hits).toEqual([]);
      process.env[ALLOW] = '127.0.0.0/8,::1/128';
      const allowed = await curl('canary.example');
      expect(allowed.output).toContain('server-error-body');
      expect(allowed.output).toContain('tunnel=200');
      expect(target.hits).toContain('GET /plain');
      target.hits.length = 0;
    } finally {
      delete process.env.BAREAGENT_SANDBOX_RELAY;
      resetSandboxState();
    }
  }, 60_000);
});
