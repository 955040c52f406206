import { Client, Connection } from '@temporalio/client';
import { LocalCluster } from '../../src/cluster/local-cluster';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import type { AgentRunResult } from '../../src/common/wire';
import { Harness } from '../support/harness';
import { readTestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * `npm run test:cluster` only: the server the suites run against is the compose file's production
 * setup (PostgreSQL persistence and SQL visibility, its shard count), and the cluster keeps its
 * runs when all of it, PostgreSQL included, is stopped and started again.
 */
const env = readTestEnv();
const clusterEnv = env.cluster;
if (!clusterEnv) throw new Error('test/cluster runs under npm run test:cluster (BAREAGENT_TEST_SERVER=cluster)');
const cluster = new LocalCluster({ dir: clusterEnv.dir, ports: clusterEnv.ports, log: () => undefined });

let h: Harness | undefined;
beforeAll(async () => {
  h = await Harness.create({ hello: [{ text: 'Hello from PostgreSQL.' }] });
  await h.startWorker();
});
afterAll(() => h?.close());

test('the server is Temporal of the compose file, on PostgreSQL for persistence and visibility, with its shard count', async () => {
  if (!h) throw new Error('no harness');
  const info = await h.client.workflowService.getClusterInfo({});
  expect(info.serverVersion).toBe(cluster.spec.serverVersion);
  expect(info.persistenceStore).toBe('postgres12');
  expect(info.visibilityStore).toBe('postgres12');
  expect(info.historyShardCount).toBe(Number(cluster.spec.serverEnv.NUM_HISTORY_SHARDS));
  const attributes = await h.client.connection.operatorService.listSearchAttributes({ namespace: 'default' });
  expect(Object.keys(attributes.customAttributes ?? {})).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
});

test('a run is found by its search attributes in SQL visibility, and survives a full stop and start of the cluster', async () => {
  if (!h) throw new Error('no harness');
  const run = h;
  const handle = await run.start({ prompt: 'hi', model: 'hello', workspace: run.workspace() });
  const result = (await handle.result()) as AgentRunResult;
  expect(result.text).toBe('Hello from PostgreSQL.');
  const query = `WorkflowId = '${handle.workflowId}' AND BareAgentStatus = 'completed' AND BareAgentModel = 'hello' AND BareAgentIterations = 1`;
  const found = await waitFor(async () => {
    for await (const listed of run.client.workflow.list({ query })) return listed.workflowId;
    return undefined;
  }, 'the run in visibility');
  expect(found).toBe(handle.workflowId);
  h = undefined;
  await run.close();

  await cluster.stop();
  expect(await cluster.status()).toMatchObject({ postgres: false, server: undefined });
  await cluster.start();

  const connection = await Connection.connect({ address: env.address });
  try {
    const after = new Client({ connection }).workflow.getHandle(handle.workflowId);
    expect(await after.result()).toEqual(result);
    expect((await after.describe()).searchAttributes).toMatchObject({ BareAgentStatus: ['completed'] });
  } finally {
    await connection.close();
  }
});
