import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDevServer, type DevServer } from '../../src/server/dev-server';
import { freePort } from './free-port';
import { testCluster } from './test-cluster';
import { readTestEnv } from './test-env';

/** A Temporal server a test may stop and start again on the same ports and data. */
export interface RestartableServer {
  address: string;
  kind: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Under `npm run test:cluster`: the cluster's own server process (PostgreSQL stays up, as a
 * database on another host would). Otherwise: a dev server of the test's own on a persistent SQLite file.
 */
export async function restartableServer(): Promise<RestartableServer> {
  const env = readTestEnv();
  if (env.cluster) {
    const cluster = testCluster(env.cluster);
    return {
      address: cluster.address,
      kind: `Temporal ${cluster.spec.serverVersion} on PostgreSQL`,
      stop: () => cluster.stopServer(),
      start: async () => void (await cluster.startServer()),
    };
  }
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-restart-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const options = { address: `127.0.0.1:${port}`, uiPort, home, startTimeoutMs: 90_000, log: () => undefined };
  let server: DevServer | undefined;
  const start = async () => {
    server = await ensureDevServer(options);
    if (server.reused) throw new Error(`another server answered on ${options.address}: this test must start its own`);
  };
  await start();
  return { address: options.address, kind: 'dev server on SQLite', stop: async () => server?.stop(), start };
}
