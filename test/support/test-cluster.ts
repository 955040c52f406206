import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalCluster } from '../../src/cluster/local-cluster';
import type { ServerPorts } from '../../src/cluster/server-ports';
import { freeLowPort } from '../../src/cluster/free-port';

/** `BAREAGENT_TEST_SERVER=cluster` (npm run test:cluster): the suites run against `npm run cluster`'s server. */
export const onCluster = () => process.env.BAREAGENT_TEST_SERVER === 'cluster';

export interface TestClusterEnv {
  dir: string;
  ports: ServerPorts;
}

/** A fresh cluster (PostgreSQL, schema, server, namespace, search attributes) in a temp folder, on free ports. */
export async function startTestCluster(log: (line: string) => void): Promise<{ cluster: LocalCluster; env: TestClusterEnv }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-cluster-'));
  const taken = new Set<number>();
  const names = ['FRONTEND_GRPC_PORT', 'FRONTEND_HTTP_PORT', 'FRONTEND_MEMBERSHIP_PORT', 'HISTORY_GRPC_PORT', 'HISTORY_MEMBERSHIP_PORT', 'MATCHING_GRPC_PORT', 'MATCHING_MEMBERSHIP_PORT', 'WORKER_GRPC_PORT', 'WORKER_MEMBERSHIP_PORT'] as const;
  const ports = {} as ServerPorts;
  for (const name of names) ports[name] = await freeLowPort(taken);
  const cluster = new LocalCluster({ dir, ports, log });
  try {
    await cluster.start();
  } catch (err) {
    await cluster.stop().catch(() => undefined);
    throw err;
  }
  return { cluster, env: { dir, ports } };
}

/** The test run's cluster, seen from a test file (e.g. to restart its server). */
export function testCluster(env: TestClusterEnv): LocalCluster {
  return new LocalCluster({ dir: env.dir, ports: env.ports, log: () => undefined });
}

export async function stopTestCluster(cluster: LocalCluster): Promise<void> {
  await cluster.stop();
  if (!process.env.BAREAGENT_KEEP_TEST_CLUSTER) rmSync(cluster.options.dir, { recursive: true, force: true });
}
