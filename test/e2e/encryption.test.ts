import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { type temporal } from '@temporalio/proto';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { ensureDevServer } from '../../src/server/dev-server';
import { Harness } from '../support/harness';
import { runCli } from '../support/cli';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait-for';
import { messagesQuery } from '../../src/common/contract';

/**
 * BAREAGENT_ENCRYPTION_KEY end to end: a harness worker with the codec, `bareagent start --follow`
 * with the key (streamed text still arrives), a history read through a client without the key
 * that holds no plaintext, and a payload decrypted by `bareagent codec-server` over HTTP.
 */
const ROOT = path.resolve(__dirname, '../..');
const execFileAsync = promisify(execFile);
const KEY = randomBytes(32).toString('base64');
let h: Harness;
let env: Record<string, string>;
let encrypted: DataConverter;
let connection: Connection;
let encryptingClient: Client;
beforeAll(async () => {
  h = await Harness.create();
  encrypted = dataConverterFromEnv({ BAREAGENT_ENCRYPTION_KEY: KEY })!;
  await h.startWorker({ dataConverter: encrypted });
  env = {
    TEMPORAL_ADDRESS: h.env.address,
    BAREAGENT_TASK_QUEUE: h.taskQueue,
    BAREAGENT_UI_PORT: String(h.env.uiPort),
    BAREAGENT_ENCRYPTION_KEY: KEY,
  };
  connection = await Connection.connect({ address: h.env.address });
  encryptingClient = new Client({ connection, dataConverter: encrypted });
});
afterAll(async () => {
  await connection.close();
  await h.close();
});

type RawHistory = temporal.api.history.v1.IHistory;

/** Every byte string anywhere in the history (payload data and metadata, nested failures...), as text. */
function byteStrings(value: unknown, out: string[] = []): string[] {
  if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'), Buffer.from(value).toString('latin1'));
  else if (Array.isArray(value)) value.forEach((item) => byteStrings(item, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((item) => byteStrings(item, out));
  return out;
}

/** Where `marker` shows in the history: its proto JSON (base64 payloads decoded too) and every byte string. */
function plaintextHits(history: RawHistory, marker: string): string[] {
  const json = historyToJSON(history);
  const base64Decoded = [...json.matchAll(/"([A-Za-z0-9+/]{8,}={0,2})"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));
  return [json, JSON.stringify(history), ...base64Decoded, ...byteStrings(history)].filter((text) => text.includes(marker));
}

test('with the key set, `start --follow` streams the text, and the stored history holds no plaintext', async () => {
  const marker = `MARKER-${randomUUID()}`;
  const model = `enc-${randomUUID().slice(0, 8)}`;
  h.model.setScenario(model, [
    { text: `Reading the notes for ${marker}.`, toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { file_path: 'notes.txt' } }] },
    { text: `The notes say: ${marker} streamed.`, chunks: ['The notes say: ', marker, ' streamed.'] },
  ]);
  const workspace = h.workspace({ 'notes.txt': `secret notes about ${marker}` });
  const workflowId = `enc-${randomUUID()}`;
  const run = await runCli(['start', `Summarise the notes about ${marker}`, '--model', model, '--workspace', workspace, '--id', workflowId, '--follow', '--json'], env);
  expect(run.code).toBe(0);
  const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
  const deltas = events.filter((e) => e.type === 'text').map((e) => e.delta);
  expect(deltas.join('')).toContain(`The notes say: ${marker} streamed.`);
  expect(events.at(-1)).toMatchObject({ workflowId, status: 'completed', result: { text: `The notes say: ${marker} streamed.` } });

  // The harness client has no codec: it sees what the server stores.
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  expect(history.events?.length).toBeGreaterThan(10);
  expect(plaintextHits(history, marker)).toEqual([]);
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const input = started.input!.payloads![0]!;
  expect(Buffer.from(input.metadata!.encoding!).toString()).toBe('binary/encrypted');
  expect(Buffer.from(input.metadata!['encryption-key-id']!).toString()).toMatch(/^sha256:[0-9a-f]{16}$/);
  // The static summary (Web UI) is a payload too.
  expect(Buffer.from((history.events![0]!.userMetadata?.summary?.metadata?.encoding) ?? []).toString()).toBe('binary/encrypted');

  // Without the key, the CLI says why it cannot read the run; with it, everything reads back.
  const { BAREAGENT_ENCRYPTION_KEY: _key, ...plainEnv } = env;
  const unreadable = await runCli(['history', workflowId], plainEnv);
  expect(unreadable.code).toBe(2);
  expect(unreadable.stderr).toContain("This run's payloads are encrypted: set BAREAGENT_ENCRYPTION_KEY");
  const list = JSON.parse((await runCli(['list', '--model', model, '--json'], env)).stdout);
  expect(list).toEqual([expect.objectContaining({ workflowId, summary: `Summarise the notes about ${marker}` })]);
  expect(JSON.stringify(await encryptingClient.workflow.getHandle(workflowId).query(messagesQuery))).toContain(`secret notes about ${marker}`);
});

test('a fork of an encrypted run inherits its encrypted input, and the loaded conversation is stored encrypted', async () => {
  const marker = `FORK-${randomUUID()}`;
  const model = `encfork-${randomUUID().slice(0, 8)}`;
  h.model.setScenario(model, [{ text: `Noted ${marker}.` }, { text: 'Forked answer.' }]);
  const originId = `encorigin-${randomUUID()}`;
  await encryptingClient.workflow.execute('agentRun', { taskQueue: h.taskQueue, workflowId: originId, args: [{ prompt: `Remember ${marker}`, model, workspace: h.workspace() }] });
  const forkId = `encfork-${randomUUID()}`;
  const forked = await runCli(['fork', originId, '--prompt', 'And now?', '--id', forkId, '--json'], env);
  expect(forked.stderr).toBe('');
  expect(JSON.parse(forked.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'completed', result: { text: 'Forked answer.' } });
  // The inherited model answered, with the origin's conversation decrypted for it.
  const [, request] = h.model.requestsFor(model);
  expect(JSON.stringify(request!.body.messages)).toContain(`Noted ${marker}.`);
  expect(plaintextHits(await h.client.workflow.getHandle(forkId).fetchHistory(), marker)).toEqual([]);
});

test('the detector finds plaintext where there is some: a run started by a client without the key', async () => {
  // The worker's codec passes plaintext input through, so such a run still works; its input stays readable.
  const marker = `PLAIN-${randomUUID()}`;
  const model = `plain-${randomUUID().slice(0, 8)}`;
  h.model.setScenario(model, [{ text: 'ok' }]);
  const handle = await h.start({ prompt: marker, model, workspace: h.workspace() });
  await encryptingClient.workflow.getHandle(handle.workflowId).result();
  expect(plaintextHits(await handle.fetchHistory(), marker).length).toBeGreaterThan(0);
});

test('bareagent codec-server decrypts a stored payload over HTTP, with CORS for the Web UI', async () => {
  const marker = `CODEC-${randomUUID()}`;
  const model = `codec-${randomUUID().slice(0, 8)}`;
  h.model.setScenario(model, [{ text: 'done' }]);
  const handle = await encryptingClient.workflow.start('agentRun', {
    taskQueue: h.taskQueue,
    workflowId: `codec-${randomUUID()}`,
    args: [{ prompt: marker, model, workspace: h.workspace() }],
  });
  await handle.result();
  const history = await h.client.workflow.getHandle(handle.workflowId).fetchHistory();
  const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
  const jsonPayload = {
    metadata: Object.fromEntries(Object.entries(input.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(input.data!).toString('base64'),
  };

  const server = await startCodecServer({ ...env, BAREAGENT_CODEC_ALLOW_ENCODE: '1' }); // /encode is opt-in
  try {
    const origin = `http://127.0.0.1:${h.env.uiPort}`;
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/i);
    const foreign = await fetch(`${server.url}/decode`, { method: 'OPTIONS', headers: { Origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

    const response = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Origin: origin },
      body: JSON.stringify({ payloads: [jsonPayload] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    const { payloads } = (await response.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(Buffer.from(payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(payloads[0]!.data, 'base64').toString())).toMatchObject({ prompt: marker });

    // Mounted under any prefix (only the last path segment counts); /encode round-trips.
    const encoded = await postJson(`${server.url}/default/encode`, { payloads });
    expect(Buffer.from(encoded.payloads[0].metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(encoded.payloads[0].data, 'base64').toString('latin1')).not.toContain(marker);
    const decoded = await postJson(`${server.url}/default/decode`, encoded);
    expect(decoded.payloads).toEqual(payloads);

    const bad = await fetch(`${server.url}/decode`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'not json' });
    expect(bad.status).toBe(400);

    // The real Temporal CLI shows the history decrypted through it, and only through it.
    const show = (extra: string[]) =>
      execFileAsync(h.env.cliPath, ['workflow', 'show', '--workflow-id', handle.workflowId, '--address', h.env.address, '-o', 'json', ...extra]);
    const base64Texts = (json: string) => [...json.matchAll(/"([A-Za-z0-9+/]{8,}={0,2})"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));
    const encryptedEncoding = Buffer.from('binary/encrypted').toString('base64');
    const raw = (await show([])).stdout;
    expect(raw).toContain(encryptedEncoding);
    expect(base64Texts(raw).some((text) => text.includes(marker))).toBe(false);
    const viaCodec = (await show(['--codec-endpoint', server.url])).stdout;
    expect(viaCodec).not.toContain(encryptedEncoding);
    expect(base64Texts(viaCodec).some((text) => text.includes(marker))).toBe(true);
  } finally {
    await server.stop();
  }
});

test('BAREAGENT_UI_CODEC_ENDPOINT points the embedded server\'s Web UI at the codec server', async () => {
  const [port, uiPort] = [await freePort(), await freePort()];
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-codec-ui-'));
  const previous = process.env.BAREAGENT_UI_CODEC_ENDPOINT;
  process.env.BAREAGENT_UI_CODEC_ENDPOINT = 'http://127.0.0.1:8888';
  const server = await ensureDevServer({ address: `127.0.0.1:${port}`, uiPort, home, persistent: false, log: () => undefined }).finally(() => {
    if (previous === undefined) delete process.env.BAREAGENT_UI_CODEC_ENDPOINT;
    else process.env.BAREAGENT_UI_CODEC_ENDPOINT = previous;
  });
  try {
    const settings = await waitFor(async () => (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json(), 'the Web UI settings');
    expect(settings).toMatchObject({ Codec: { Endpoint: 'http://127.0.0.1:8888' } });
  } finally {
    await server.stop();
  }
});

test('a malformed key fails every command at once with a clear message', async () => {
  const result = await runCli(['list'], { ...env, BAREAGENT_ENCRYPTION_KEY: 'too-short' });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('BAREAGENT_ENCRYPTION_KEY: decodes to');
  expect(result.stderr).toContain('openssl rand -base64 32');
  const server = await runCli(['codec-server'], { ...env, BAREAGENT_ENCRYPTION_KEY: '' });
  expect(server.code).toBe(2);
  expect(server.stderr).toContain('codec-server needs BAREAGENT_ENCRYPTION_KEY');
});

async function postJson(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return response.json();
}

/** `bareagent codec-server --json` in its own process, on a free port; resolves once it listens. */
async function startCodecServer(cliEnv: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), 'codec-server', '--port', String(port), '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...cliEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`codec-server exited (${code}):\n${output}`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
