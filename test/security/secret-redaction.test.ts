/**
 * The worker's secrets never leave an activity: the activities the worker registers
 * (createActivities), called as the worker calls them, with secrets in process.env and a
 * workspace, a command and a provider that all hand them back in some encoding.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import type { CommandResult } from '../../src/common/jobs';
import type { ToolOutcome } from '../../src/common/tool-outcome';

const API_KEY = 'sk-test-SECRET-4f9a1c7e2b8d6053';
const ENV_SECRETS = {
  GITHUB_TOKEN: 'ghp_Secret0123456789abcdefGHIJ',
  BAREAGENT_ENCRYPTION_KEY: 'q3Lx9V0s2m7YtR8kP1nB5cW4zH6jD0fA2gE7uI9oK3M=',
  TEMPORAL_API_KEY: 'tmprl-api-key-9d8c7b6a5f4e',
  DATABASE_PASSWORD: 'correct-horse-battery',
};
const SECRETS = [API_KEY, ...Object.values(ENV_SECRETS)];

const b64 = (text: string) => Buffer.from(text).toString('base64');
const hex = (text: string) => Buffer.from(text).toString('hex');
const percentAll = (text: string) => [...Buffer.from(text)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');

/** Every form the test writes a secret in, and a check that none of them is left. */
function forms(secret: string): string[] {
  return [secret, b64(secret).slice(2, -4), hex(secret), percentAll(secret), encodeURIComponent(secret), secret.slice(3, -3)];
}
function expectNoSecret(text: string): void {
  const squeezed = text.replace(/[\s"'`+,]|\n\d+: /g, '');
  for (const secret of SECRETS) {
    for (const form of forms(secret)) {
      expect(text).not.toContain(form);
      expect(squeezed).not.toContain(form);
    }
  }
}

let activities: ReturnType<typeof createActivities>;
let workspace: string;
let provider: http.Server;
let saved: Record<string, string | undefined>;
const mock = new MockActivityEnvironment();

beforeAll(async () => {
  saved = Object.fromEntries(Object.keys(ENV_SECRETS).map((name) => [name, process.env[name]]));
  Object.assign(process.env, ENV_SECRETS);
  // A provider that echoes the key it was sent, as is and base64-encoded (as some proxies log it).
  provider = http.createServer((req, res) => {
    const auth = String(req.headers.authorization);
    res.writeHead(401, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${auth} (${b64(auth)})`, type: 'invalid_request_error' } }));
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const { port } = provider.address() as AddressInfo;
  activities = createActivities({ provider: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY, requestTimeoutMs: 10_000 } });
  // The env is read once, when the activities are created: restoring it now changes nothing.
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }

  workspace = mkdtempSync(path.join(os.tmpdir(), 'bareagent-redaction-'));
  const lines = SECRETS.flatMap((secret) => [
    `plain: ${secret}`,
    `split: ${secret.slice(0, 12)}`,
    `${secret.slice(12)}`,
    `base64: ${b64(secret)}`,
    `inside base64: ${b64(`{"auth":"Bearer ${secret}"}`)}`,
    `percent: ${encodeURIComponent(secret)} ${percentAll(secret).toLowerCase()}`,
    `hex: ${hex(secret)}`,
    `quoted: "${secret.slice(0, 10)}" + "${secret.slice(10)}"`,
  ]);
  writeFileSync(path.join(workspace, 'leak.txt'), ['ordinary line', ...lines, 'last line'].join('\n') + '\n');
});
afterAll(async () => {
  await new Promise((resolve) => provider.close(resolve));
});

test('read_file: every form of every secret in the file is redacted, the rest is kept', async () => {
  const outcome = await activities.read_file({ workspace, input: { file_path: 'leak.txt' } });
  expect(outcome.ok).toBe(true);
  const output = (outcome as Extract<ToolOutcome, { ok: true }>).output;
  expectNoSecret(output);
  expect(output).toContain('1: ordinary line');
  expect(output).toMatch(/\d+: last line$/);
  expect(output.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(SECRETS.length * 7);
  expect(output).toContain('3: split: [redacted]\n5: base64: [redacted]');
});

test('grep: matching lines are redacted too', async () => {
  const outcome = await activities.grep({ workspace, input: { pattern: '.' } });
  expect(outcome.ok).toBe(true);
  expectNoSecret((outcome as Extract<ToolOutcome, { ok: true }>).output);
});

test('a failed tool: its message is redacted', async () => {
  const outcome = await activities.read_file({ workspace, input: { file_path: `no-such-${API_KEY}.txt` } });
  expect(outcome).toEqual({ ok: false, errorType: expect.any(String), message: expect.stringContaining('[redacted]') });
  expectNoSecret(JSON.stringify(outcome));
});

test('bash and runCommand: what a command prints, in any encoding, is redacted', async () => {
  const command = [
    'cat leak.txt',
    ...SECRETS.flatMap((secret) => [
      `printf '%s' '${secret}' | base64`,
      `printf '%s' '${secret}' | od -An -tx1`,
      `printf 'x%s' '${secret}' | base64 -w 8`,
      `echo '${secret}' | fold -w 5`,
    ]),
  ].join('; ');
  const outcome = (await mock.run(activities.bash, { workspace, input: { command } })) as ToolOutcome;
  expect(outcome.ok).toBe(true);
  expectNoSecret(JSON.stringify(outcome));
  expectNoSecret((outcome as Extract<ToolOutcome, { ok: true }>).output);

  const job = (await mock.run(activities.runCommand, { command, timeoutSeconds: 30, workspace })) as CommandResult;
  expect(job.exitCode).toBe(0);
  expect(job.output).toContain('ordinary line');
  expectNoSecret(job.output);
});

test('an activity that throws: message, stack and cause are redacted', async () => {
  const missing = path.join(workspace, `gone-${API_KEY}`);
  const error = await mock.run(activities.runCommand, { command: 'true', timeoutSeconds: 5, workspace: missing }).catch((err: Error) => err);
  expect((error as Error).message).toMatch(/^ENOENT: .*gone-\[redacted\]/);
  expectNoSecret(`${(error as Error).message}\n${(error as Error).stack}`);
});

test('callModel: a provider that echoes the key has it redacted from the failure, which keeps its type', async () => {
  const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], tools: [], stream: false, step: 1 };
  const error = (await mock.run(activities.callModel, request).catch((err: unknown) => err)) as Error & { type?: string; cause?: Error };
  expect(error.message).toMatch(/Incorrect API key provided: Bearer \[redacted\] \(\S*\[redacted\]\S*\)/);
  expect(error.type).toBe('AuthenticationError');
  expectNoSecret([error.message, error.stack, error.cause?.message, error.cause?.stack].join('\n'));
});
