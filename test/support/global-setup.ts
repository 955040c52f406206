import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { preflight } from '../../src/doctor/run-doctor';
import { ensureDevServer } from '../../src/server/dev-server';
import { findOrBuildTemporalCli } from '../../src/server/temporal-cli';
import { bundleOptions } from '../../src/worker/workflow-bundle';
import { warningsOnlyLogger } from '../../src/worker/warnings-only-logger';
import { freePort } from './free-port';
import { onCluster, startTestCluster } from './test-cluster';
import type { TestEnv } from './test-env';

/**
 * One real dev server per `npm test` run, on free ports, and the workflow code bundled once
 * for every test file's workers. The wait is long enough for a cold start on a slow machine.
 * Under `npm run test:cluster` the server is a fresh local cluster (Temporal on PostgreSQL) instead.
 * First the doctor's checks: a machine that lacks what the tests need (bubblewrap that works,
 * Chromium, a pseudo-terminal, PostgreSQL for the cluster) fails here, in seconds, with one table,
 * instead of suites failing one by one for minutes.
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const checked = await preflight('npm test', { cli: true, sandbox: true, tests: true, postgres: onCluster() });
  const missing = checked.filter((c) => c.status !== 'ok').map((c) => `${c.name} (${c.detail})`);
  if (missing.length) console.error(`\n[global setup] not required, but missing or degraded: ${missing.join('; ')}`);
  const cliPath = await findOrBuildTemporalCli();
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-test-'));
  // Every worker, CLI and page of the suite keeps its state (checkpoint stores, caches, tokens)
  // here, never in the real user's home; a test of the default home clears it for its own process.
  process.env.BAREAGENT_HOME = home;
  const [port, uiPort] = [await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  if (onCluster()) return clusterSetup(started, home, uiPort, cliPath);
  const [server, bundle] = await Promise.all([
    ensureDevServer({ address, uiPort, home, startTimeoutMs: 90_000, log: () => undefined }),
    bundleWorkflowCode({ ...bundleOptions(), logger: warningsOnlyLogger }),
  ]);
  const bundlePath = path.join(home, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  const env: TestEnv = {
    address,
    uiPort,
    bundlePath,
    cliPath,
    dbFile: path.join(home, 'temporal.sqlite'),
    serverPid: server.process?.pid ?? 0,
  };
  const envFile = path.join(home, 'test-env.json');
  writeFileSync(envFile, JSON.stringify(env));
  process.env.BAREAGENT_TEST_ENV_FILE = envFile;
  (globalThis as Record<string, unknown>).__bareagentServer = server;
  console.error(`\n[global setup] dev server ${address} (UI ${uiPort}) ready in ${Date.now() - started} ms`);
}

async function clusterSetup(started: number, home: string, uiPort: number, cliPath: string): Promise<void> {
  const [{ cluster, env: clusterEnv }, bundle] = await Promise.all([
    startTestCluster((line) => console.error(`[cluster] ${line}`)),
    bundleWorkflowCode({ ...bundleOptions(), logger: warningsOnlyLogger }),
  ]);
  const bundlePath = path.join(home, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  const status = await cluster.status();
  const env: TestEnv = { address: cluster.address, uiPort, bundlePath, cliPath, dbFile: '', serverPid: status.server ?? 0, cluster: clusterEnv };
  const envFile = path.join(home, 'test-env.json');
  writeFileSync(envFile, JSON.stringify(env));
  process.env.BAREAGENT_TEST_ENV_FILE = envFile;
  (globalThis as Record<string, unknown>).__bareagentCluster = cluster;
  console.error(`\n[global setup] cluster ${cluster.address} (Temporal ${cluster.spec.serverVersion} on PostgreSQL, ${clusterEnv.dir}) ready in ${Date.now() - started} ms`);
}
