/**
 * The operator's state outside every project, started the way a newcomer starts BareAgent: no
 * BAREAGENT_HOME, `bareagent server` and `bareagent run` from the project directory (HOME is a
 * temporary directory, so the default home is too). A hostile model in that project looks for the
 * page's token, the server's SQLite file (which holds a secret another workspace's run read) and
 * the checkpoint stores, with read_file, grep and bash, with the whole HOME bound into the sandbox:
 * none is there, and the home is an empty mount inside the sandbox. The home is 0700 and its files
 * 0600; an old `./.bareagent/temporal.sqlite` is pointed out once and left where it is.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolResultBlock } from '../../src/common/messages';
import { messagesQuery } from '../../src/common/contract';
import { isTemporalServer } from '../../src/server/dev-server';
import { loadUiToken } from '../../src/ui/ui-token';
import { freePort } from '../support/free-port';
import { Harness } from '../support/harness';
import { readTestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';

const ROOT = path.resolve(__dirname, '../..');
const secret = `secret-${randomUUID()}`;
const userHome = mkdtempSync(path.join(os.tmpdir(), 'bareagent-user-'));
/** Where the state goes with nothing set: ~/.local/state/bareagent. */
const home = path.join(userHome, '.local', 'state', 'bareagent');
const project = mkdtempSync(path.join(os.tmpdir(), 'bareagent-project-'));
const other = mkdtempSync(path.join(os.tmpdir(), 'bareagent-other-'));
/** A newcomer's environment: no BAREAGENT_HOME, no XDG_STATE_HOME (empty counts as unset). */
const defaults = { HOME: userHome, BAREAGENT_HOME: '', XDG_STATE_HOME: '' };

let address: string;
let server: ChildProcess;
let serverOut = '';
let h: Harness;
let worker: WorkerProcess;
let cliEnv: Record<string, string>;

function bareagent(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

beforeAll(async () => {
  writeFileSync(path.join(project, 'README.md'), '# A project\n');
  writeFileSync(path.join(other, 'credentials.txt'), `${secret}\n`);
  const [port, uiPort] = [await freePort(), await freePort()];
  address = `127.0.0.1:${port}`;
  const env = { ...defaults, TEMPORAL_ADDRESS: address, BAREAGENT_UI_PORT: String(uiPort), TEMPORAL_CLI: readTestEnv().cliPath };
  server = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), 'server'], { cwd: project, env: { ...process.env, NO_COLOR: '1', ...env } });
  server.stdout?.on('data', (c: Buffer) => (serverOut += c.toString()));
  server.stderr?.on('data', (c: Buffer) => (serverOut += c.toString()));
  await waitFor(async () => ((await isTemporalServer(address)) ? true : undefined), `bareagent server on ${address}:\n${serverOut}`, 90_000);
  h = await Harness.create(
    {
      // It writes too: a run that only reads takes no checkpoint, and the store is part of what the hunt looks for.
      read: [
        { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'credentials.txt' } }] },
        { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: 'notes.txt', content: 'read the credentials\n' } }] },
        { text: 'read it' },
      ],
      hunt: [
        {
          toolCalls: [
            { id: 'token', name: 'read_file', arguments: { file_path: '.bareagent/ui-token' } },
            { id: 'db', name: 'read_file', arguments: { file_path: '.bareagent/temporal.sqlite' } },
            { id: 'grep', name: 'grep', arguments: { pattern: secret, path: '.' } },
            { id: 'bash', name: 'bash', arguments: { command: `ls -A ${userHome}; echo "home: [$(ls -A ${home})]"; cat ${home}/ui-token; grep -ral ${secret} ${userHome}; echo end` } },
          ],
        },
        { text: 'nothing found' },
      ],
    },
    { address },
  );
  // `npm run worker` with the defaults: its state (checkpoint stores) goes to the default home too.
  worker = await WorkerProcess.start(h, defaults);
  cliEnv = { ...defaults, TEMPORAL_ADDRESS: address, BAREAGENT_TASK_QUEUE: h.taskQueue, BAREAGENT_UI_PORT: String(uiPort) };
}, 180_000);

afterAll(async () => {
  await worker?.kill();
  await h?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT');
    await exited;
  }
});

test('a run in the project finds none of the operator state, with read_file, grep or bash, and the home is masked in the sandbox', async () => {
  // Another workspace's run reads a secret: it is in the server's database from now on.
  const first = await bareagent(['run', '-m', 'read', '--mode', 'auto', '--id', `read-${randomUUID()}`, 'read the credentials'], other, cliEnv);
  expect(first.code).toBe(0);
  const token = loadUiToken(home, { ...process.env, BAREAGENT_UI_TOKEN: '' });
  expect(token.file).toBe(path.join(home, 'ui-token'));
  // The controls: what the hunt looks for is there, on the host.
  const database = ['temporal.sqlite', 'temporal.sqlite-wal'].map((name) => path.join(home, name)).filter(existsSync);
  expect(database.some((file) => readFileSync(file).includes(secret))).toBe(true);
  expect(readdirSync(path.join(home, 'checkpoints')).some((name) => name.startsWith(path.basename(other)))).toBe(true);

  const id = `hunt-${randomUUID()}`;
  // bypass: the commands run unasked; --read-path binds the whole HOME, the home's parent included.
  const hunt = await bareagent(['run', '-m', 'hunt', '--mode', 'bypass', '--read-path', userHome, '--id', id, 'find the token'], project, cliEnv);
  expect(hunt.code).toBe(0);
  const messages = await h.client.workflow.getHandle(id).query(messagesQuery);
  const results = new Map<string, ToolResultBlock>();
  for (const message of messages) for (const block of Array.isArray(message.content) ? message.content : []) if (block.type === 'tool_result') results.set(block.tool_use_id, block);
  expect(results.get('token')).toMatchObject({ is_error: true });
  expect(results.get('db')).toMatchObject({ is_error: true });
  expect(String(results.get('grep')?.content)).toMatch(/^No matches found for /);
  const bash = String(results.get('bash')?.content);
  // The HOME is bound (its .local shows), the home inside it is an empty mount, and no file of it is read.
  expect(bash).toContain('.local');
  expect(bash).toContain('home: []');
  expect(bash).toContain('No such file or directory');
  expect(bash).toContain('end');
  for (const [callId, block] of results) {
    expect(String(block.content)).not.toContain(token.token);
    // grep's "No matches found for <pattern>" names the secret it looked for.
    if (callId !== 'grep') expect(String(block.content)).not.toContain(secret);
  }
  // Nothing of the operator's was written into the project either.
  expect(readdirSync(project).sort()).toEqual(['README.md']);
});

test('the home is 0700 and every file in it 0600 or narrower: database, token, checkpoint stores', () => {
  const seen: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const stat = statSync(full);
      seen.push(path.relative(home, full));
      expect([full, stat.mode & 0o077]).toEqual([full, 0]);
      if (stat.isDirectory()) walk(full);
    }
  };
  expect(statSync(home).mode & 0o777).toBe(0o700);
  walk(home);
  expect(seen).toEqual(expect.arrayContaining(['temporal.sqlite', 'ui-token', 'checkpoints']));
  expect(statSync(path.join(home, 'temporal.sqlite')).mode & 0o777).toBe(0o600);
  expect(statSync(path.join(home, 'ui-token')).mode & 0o777).toBe(0o600);
  expect(statSync(path.join(home, 'checkpoints')).mode & 0o777).toBe(0o700);
});

test('an old ./.bareagent/temporal.sqlite is pointed out once, with the command that moves it, and left where it is', async () => {
  const newcomer = mkdtempSync(path.join(os.tmpdir(), 'bareagent-upgrader-'));
  const oldProject = mkdtempSync(path.join(os.tmpdir(), 'bareagent-old-project-'));
  mkdirSync(path.join(oldProject, '.bareagent'));
  const old = path.join(oldProject, '.bareagent', 'temporal.sqlite');
  writeFileSync(old, 'runs of last week');
  const env = { ...cliEnv, HOME: newcomer };
  const newHome = path.join(newcomer, '.local', 'state', 'bareagent');
  // The server already answers there: the notice comes before it is reused.
  const first = await bareagent(['server'], oldProject, env);
  expect(first.code).toBe(0);
  expect(first.out).toContain(`Runs of an earlier BareAgent are in ${realpathSync(oldProject)}/.bareagent/temporal.sqlite`);
  expect(first.out).toContain(`mv -i ${realpathSync(oldProject)}/.bareagent/temporal.sqlite* ${newHome}/`);
  const second = await bareagent(['server'], oldProject, env);
  expect(second.code).toBe(0);
  expect(second.out).not.toContain('Runs of an earlier BareAgent');
  expect(readFileSync(old, 'utf8')).toBe('runs of last week');
});

test('bareagent run refuses a project whose ./.bareagent is the home, naming both, before it starts anything', async () => {
  const stale = mkdtempSync(path.join(os.tmpdir(), 'bareagent-stale-'));
  const result = await bareagent(['run', '-m', 'hunt', 'find the token'], stale, { ...cliEnv, BAREAGENT_HOME: './.bareagent' });
  expect(result.code).toBe(2);
  expect(result.out).toContain(`The workspace ${realpathSync(stale)} contains BareAgent's home`);
  expect(result.out).toContain(`${realpathSync(stale)}/.bareagent`);
  expect(existsSync(path.join(stale, '.bareagent'))).toBe(false);
});
