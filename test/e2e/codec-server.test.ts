/**
 * The codec server refuses what it must, over real HTTP: a foreign Host header (DNS rebinding),
 * a foreign browser origin, a missing or wrong bearer token, a body that is not JSON or too
 * large, /encode unless enabled; and a legitimate decode, from the Web UI or the CLI, still works.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { startCodecServer, type CodecServer, type CodecServerOptions } from '../../src/codec/codec-server';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { parseEncryptionKey } from '../../src/codec/encryption-key';
import { payloadToJson, type JsonPayload } from '../../src/codec/payload-json';
import { freePort } from '../support/free-port';

const ROOT = path.resolve(__dirname, '../..');
const KEY = randomBytes(32).toString('base64');
const TOKEN = randomBytes(24).toString('hex');
const UI_ORIGIN = 'http://127.0.0.1:8233';
const codec = new EncryptionCodec(parseEncryptionKey(KEY));

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** node:http rather than fetch: fetch does not let a caller set the Host header. */
function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = { 'Content-Type': 'application/json' };
const auth = { Authorization: `Bearer ${TOKEN}` };

async function encryptedBody(value: unknown): Promise<string> {
  const [payload] = await codec.encode([defaultPayloadConverter.toPayload(value)]);
  return JSON.stringify({ payloads: [payloadToJson(payload!)] });
}

function decodedValue(reply: Reply): unknown {
  const { payloads } = JSON.parse(reply.body) as { payloads: JsonPayload[] };
  return JSON.parse(Buffer.from(payloads[0]!.data!, 'base64').toString());
}

describe('a codec server with a token', () => {
  let server: CodecServer;
  let port: string;
  let body: string;
  beforeAll(async () => {
    server = await startCodecServer({ codec, port: 0, origins: [UI_ORIGIN], token: TOKEN, allowedHosts: ['codec.internal', 'decoder.example:9999'] });
    port = new URL(server.url).port;
    body = await encryptedBody({ prompt: 'the plaintext' });
  });
  afterAll(() => server.close());

  test('a legitimate decode, from the Web UI (CORS) or a client without an Origin', async () => {
    const fromUi = await request(`${server.url}/decode`, { headers: { ...json, ...auth, Origin: UI_ORIGIN, 'X-Namespace': 'default' }, body });
    expect(fromUi.status).toBe(200);
    expect(fromUi.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    expect(decodedValue(fromUi)).toEqual({ prompt: 'the plaintext' });
    const fromCli = await request(`${server.url}/default/decode`, { headers: { 'Content-Type': 'application/json; charset=utf-8', authorization: `bearer ${TOKEN}` }, body });
    expect(fromCli.status).toBe(200);
    expect(decodedValue(fromCli)).toEqual({ prompt: 'the plaintext' });
  });

  test('the CORS preflight needs no token (browsers send none) and allows the headers the UI sends', async () => {
    const preflight = await request(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: UI_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-namespace' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization.*X-Namespace|X-Namespace.*Authorization/);
  });

  test('401 without the token or with a wrong one', async () => {
    const wrong: Array<Record<string, string>> = [{}, { Authorization: `Bearer ${TOKEN}x` }, { Authorization: TOKEN }, { Authorization: `Basic ${TOKEN}` }, { Authorization: 'Bearer ' }];
    for (const headers of wrong) {
      const reply = await request(`${server.url}/decode`, { headers: { ...json, ...headers }, body });
      expect(reply.status).toBe(401);
      expect(reply.headers['www-authenticate']).toBe('Bearer');
      expect(reply.body).not.toContain('the plaintext');
    }
  });

  test('403 for a Host that is not this server (DNS rebinding), loopback and listed hosts served', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1', `127.0.0.1:${Number(port) + 1}`, `localhost.evil.example:${port}`, 'decoder.example:8888']) {
      const reply = await request(`${server.url}/decode`, { headers: { ...json, ...auth, Host: host }, body });
      expect({ host, status: reply.status }).toEqual({ host, status: 403 });
      const preflight = await request(`${server.url}/decode`, { method: 'OPTIONS', headers: { Host: host, Origin: UI_ORIGIN } });
      expect(preflight.status).toBe(403);
    }
    for (const host of [`localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`, 'codec.internal', 'codec.internal:443', 'decoder.example:9999']) {
      const reply = await request(`${server.url}/decode`, { headers: { ...json, ...auth, Host: host }, body });
      expect({ host, status: reply.status }).toEqual({ host, status: 200 });
    }
  });

  test('403 for a POST from a browser origin that is not allowed', async () => {
    const reply = await request(`${server.url}/decode`, { headers: { ...json, ...auth, Origin: 'http://evil.example' }, body });
    expect(reply.status).toBe(403);
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('415 for a body that is not declared JSON: what a cross-site form can post without a preflight', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const headers: Record<string, string> = { ...auth, ...(type ? { 'Content-Type': type } : {}) };
      const reply = await request(`${server.url}/decode`, { headers, body });
      expect({ type, status: reply.status }).toEqual({ type, status: 415 });
    }
  });

  test('/encode is 404 unless enabled; other paths and methods 404', async () => {
    expect((await request(`${server.url}/encode`, { headers: { ...json, ...auth }, body })).status).toBe(404);
    expect((await request(`${server.url}/default/encode`, { headers: { ...json, ...auth }, body })).status).toBe(404);
    expect((await request(`${server.url}/decode`, { method: 'GET', headers: auth })).status).toBe(404);
    expect((await request(`${server.url}/other`, { headers: { ...json, ...auth }, body })).status).toBe(404);
  });

  test('413 for a body over 4 MB; 400 for one that is not the protocol\'s', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024 + 1, 'a');
    const reply = await request(`${server.url}/decode`, { headers: { ...json, ...auth }, body: big });
    expect(reply.status).toBe(413);
    expect((await request(`${server.url}/decode`, { headers: { ...json, ...auth }, body: 'not json' })).status).toBe(400);
    expect((await request(`${server.url}/decode`, { headers: { ...json, ...auth }, body: '{"payload":[]}' })).status).toBe(400);
  });
});

test('without a token every loopback request is served; /encode when enabled', async () => {
  const options: CodecServerOptions = { codec, port: 0, origins: [UI_ORIGIN], allowEncode: true };
  const server = await startCodecServer(options);
  try {
    const body = JSON.stringify({ payloads: [payloadToJson(defaultPayloadConverter.toPayload({ n: 1 }))] });
    const encoded = await request(`${server.url}/encode`, { headers: json, body });
    expect(encoded.status).toBe(200);
    const decoded = await request(`${server.url}/decode`, { headers: json, body: encoded.body });
    expect(decodedValue(decoded)).toEqual({ n: 1 });
  } finally {
    await server.close();
  }
});

describe('bareagent codec-server', () => {
  test('BAREAGENT_CODEC_TOKEN, BAREAGENT_CODEC_ALLOWED_HOSTS and --allow-encode reach the server', async () => {
    const cli = await startCli(['--allow-encode'], { BAREAGENT_CODEC_TOKEN: TOKEN, BAREAGENT_CODEC_ALLOWED_HOSTS: 'codec.internal, other.example' });
    try {
      expect(cli.info).toMatchObject({ token: true, encode: true });
      const body = await encryptedBody('hello');
      expect((await request(`${cli.url}/decode`, { headers: json, body })).status).toBe(401);
      expect((await request(`${cli.url}/decode`, { headers: { ...json, Authorization: `Bearer ${TOKEN}`, Host: 'evil.example' }, body })).status).toBe(403);
      const ok = await request(`${cli.url}/decode`, { headers: { ...json, Authorization: `Bearer ${TOKEN}`, Host: 'codec.internal' }, body });
      expect(decodedValue(ok)).toBe('hello');
      expect((await request(`${cli.url}/encode`, { headers: { ...json, Authorization: `Bearer ${TOKEN}` }, body: ok.body })).status).toBe(200);
    } finally {
      await cli.stop();
    }
  });

  test('a token too short to be one is refused at start; /encode is off by default', async () => {
    await expect(startCli(['--token', 'short'], {})).rejects.toThrow(/exited \(2\)[\s\S]*at least 16 characters/);
    const cli = await startCli([], {});
    try {
      expect(cli.info).toMatchObject({ token: false, encode: false });
      expect((await request(`${cli.url}/encode`, { headers: json, body: '{"payloads":[]}' })).status).toBe(404);
    } finally {
      await cli.stop();
    }
  });
});

/** `bareagent codec-server --json` in its own process, on a free port; resolves once it listens. */
async function startCli(args: string[], env: Record<string, string>): Promise<{ url: string; info: Record<string, unknown>; stop(): Promise<void> }> {
  const port = await freePort();
  const { BAREAGENT_CODEC_TOKEN: _t, BAREAGENT_CODEC_ALLOWED_HOSTS: _h, BAREAGENT_CODEC_ALLOW_ENCODE: _e, ...inherited } = process.env;
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), 'codec-server', '--port', String(port), '--json', ...args], {
    cwd: ROOT,
    env: { ...inherited, BAREAGENT_ENCRYPTION_KEY: KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    child.once('exit', (code) => reject(new Error(`codec-server exited (${code}):\n${output}`)));
  });
  return {
    url: String(info.url),
    info,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
