import type { LocalCluster } from '../../src/cluster/local-cluster';
import type { DevServer } from '../../src/server/dev-server';
import { stopTestCluster } from './test-cluster';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__bareagentServer as DevServer | undefined;
  await server?.stop();
  const cluster = (globalThis as Record<string, unknown>).__bareagentCluster as LocalCluster | undefined;
  if (cluster) await stopTestCluster(cluster);
}
