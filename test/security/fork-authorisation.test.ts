import { randomBytes } from 'node:crypto';
import { realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection, type WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { messagesQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';

/**
 * Forks are authorised by the worker, judged by effect: a run in another workspace, or a starter
 * without the encryption key, gets `InvalidInput` naming the reason and none of the origin's
 * conversation; a fork in the same workspace (by any path to it), with the same key, still works.
 */
const SECRET_LINE = `the .env said API_TOKEN=${randomBytes(6).toString('hex')}`;

let h: Harness;
let keyed: Client;
let connection: Connection;
beforeAll(async () => {
  h = await Harness.create();
  const encrypted = dataConverterFromEnv({ BAREAGENT_ENCRYPTION_KEY: randomBytes(32).toString('base64') })!;
  // The worker holds the key; the harness client (h.client) is a starter without it.
  await h.startWorker({ dataConverter: encrypted });
  connection = await Connection.connect({ address: h.env.address });
  keyed = new Client({ connection, dataConverter: encrypted });
}, 60_000);
afterEach(() => {
  delete process.env.BAREAGENT_FORK_ACROSS_WORKSPACES;
});
afterAll(async () => {
  await connection.close();
  await h.close();
});

async function origin(workspace: string, client: Client = keyed): Promise<WorkflowHandle> {
  const model = `fork-auth-origin-${Math.random()}`;
  h.model.setScenario(model, [{ text: SECRET_LINE }]);
  const handle = await client.workflow.start('agentRun', { taskQueue: h.taskQueue, workflowId: `origin-${Math.random()}`, args: [{ prompt: 'read the env', model, workspace, stream: false }] });
  await handle.result();
  return handle;
}

async function fork(from: WorkflowHandle, workspace: string, client: Client = keyed): Promise<{ handle: WorkflowHandle; model: string; failure?: ApplicationFailure }> {
  const model = `fork-auth-${Math.random()}`;
  h.model.setScenario(model, [{ text: 'Forked.' }]);
  const handle = await client.workflow.start('agentRun', { taskQueue: h.taskQueue, workflowId: `fork-${Math.random()}`, args: [{ prompt: 'go on', model, workspace, stream: false, forkFrom: { workflowId: from.workflowId } }] });
  try {
    await handle.result();
    return { handle, model };
  } catch (err) {
    const cause = (err as WorkflowFailedError).cause;
    if (cause instanceof ApplicationFailure) return { handle, model, failure: cause };
    throw err;
  }
}

test('a run in another workspace may not fork: InvalidInput names both workspaces, and the model never saw the origin', async () => {
  const victim = await origin(h.workspace());
  const elsewhere = h.workspace();
  const { failure, model } = await fork(victim, elsewhere);
  expect(failure?.type).toBe('InvalidInput');
  expect(failure?.message).toMatch(/a run may fork only a run of its own workspace.*BAREAGENT_FORK_ACROSS_WORKSPACES=1/);
  expect(failure?.message).toContain(elsewhere);
  expect(h.model.requestsFor(model)).toHaveLength(0);
}, 60_000);

test('the same workspace forks by the path its origin used or by its real path, never through another link; the operator can allow forks across workspaces', async () => {
  const workspace = h.workspace();
  const first = await origin(workspace);
  const link = path.join(h.workspace(), 'link');
  symlinkSync(workspace, link);
  // A link is checked at one instant and may name another folder the next: refused, whatever it names now.
  const linked = await fork(first, link);
  expect(linked.failure?.type).toBe('InvalidInput');
  expect(linked.failure?.message).toContain(`this run's workspace ${link} is reached through a link (it names ${realpathSync(workspace)} now)`);
  expect(h.model.requestsFor(linked.model)).toHaveLength(0);
  const same = await fork(first, workspace);
  expect(same.failure).toBeUndefined();
  expect(JSON.stringify(await same.handle.query(messagesQuery))).toContain(SECRET_LINE);
  // An origin started through a link forks through that same link (what `bareagent fork` sends).
  const viaLink = await origin(link);
  expect((await fork(viaLink, link)).failure).toBeUndefined();

  process.env.BAREAGENT_FORK_ACROSS_WORKSPACES = '1';
  const across = await fork(first, h.workspace());
  expect(across.failure).toBeUndefined();
}, 60_000);

test('an encrypted origin: a starter without the key is refused, nothing decrypted into its plain run; with the key the fork works', async () => {
  const workspace = h.workspace();
  const secret = await origin(workspace, keyed);
  const plain = await fork(secret, workspace, h.client);
  expect(plain.failure?.type).toBe('InvalidInput');
  expect(plain.failure?.message).toMatch(/is encrypted \(key [^)]+\) and this run's payloads are not/);
  expect(h.model.requestsFor(plain.model)).toHaveLength(0);
  expect(JSON.stringify(await plain.handle.fetchHistory())).not.toContain(SECRET_LINE);

  // Even with forks across workspaces allowed, the key still decides.
  process.env.BAREAGENT_FORK_ACROSS_WORKSPACES = '1';
  expect((await fork(secret, h.workspace(), h.client)).failure?.message).toMatch(/is encrypted/);

  const withKey = await fork(secret, workspace, keyed);
  expect(withKey.failure).toBeUndefined();
  expect(await withKey.handle.result()).toMatchObject({ text: 'Forked.' });
}, 90_000);
