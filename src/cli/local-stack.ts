import { connectionOptions } from '../connection/connection-options';
import { cachedWorkflowBundle } from '../worker/cached-bundle';
import { temporalProfile } from '../connection/temporal-profile';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { ProviderConfig } from '../connection/provider-config';
import { dataConverterFromEnv } from '../codec/data-converter';
import { bareagentHome } from '../connection/home';
import { connectionFromEnv, uiPortFromEnv, type ConnectionConfig } from '../connection/config';
import { ensureDevServer, type DevServer } from '../server/dev-server';
import { oldHomeNotice } from './old-home-notice';
import { createBareAgentWorker } from '../worker/create-worker';
import { ensureSearchAttributes } from '../worker/ensure-search-attributes';
import { applySetCurrentPolicy, resolveWorkerVersion } from '../worker/worker-version';
import { versioningFromEnv } from '../worker/worker-versioning';
import { IN_PROCESS_WORKER_PREFIX } from '../runs/live-pollers';
import { installQuietRuntime } from '../runs/quiet-runtime';

export interface Stack {
  client: Client;
  config: ConnectionConfig;
  uiPort: number;
  server?: DevServer;
  close(): Promise<void>;
}

export { bareagentHome };

/**
 * A client for TEMPORAL_ADDRESS (or the profile's address); with `embedded`, the dev server is
 * started there first when neither is set, or (`embedLoopback`, the demo) when the address is
 * on this machine's loopback and nothing answers there yet.
 */
export async function openStack(options: { embedded: boolean; embedLoopback?: boolean; log: (line: string) => void; background?: boolean }): Promise<Stack> {
  const config = connectionFromEnv();
  const uiPort = uiPortFromEnv();
  // Read first: a bad BAREAGENT_ENCRYPTION_KEY is reported before any server starts.
  const dataConverter = dataConverterFromEnv();
  let server: DevServer | undefined;
  const loopback = options.embedLoopback && /^(127\.0\.0\.1|localhost):\d+$/.test(config.address);
  if (options.embedded && (loopback || !temporalProfile().address)) {
    const home = bareagentHome();
    for (const line of oldHomeNotice(home)) options.log(line);
    server = await ensureDevServer({
      address: config.address,
      uiPort,
      home,
      log: options.log,
      background: options.background ?? false,
    });
  }
  const connection = await Connection.connect(connectionOptions(config.address)).catch((err: Error) => {
    throw new Error(`Cannot reach Temporal at ${config.address}: ${err.message}\n  Start one with: npm run server`);
  });
  const client = new Client({ connection, namespace: config.namespace, ...(dataConverter ? { dataConverter } : {}) });
  return {
    client,
    config,
    uiPort,
    ...(server ? { server } : {}),
    close: async () => {
      await connection.close();
    },
  };
}

export interface LocalWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/** A worker inside the CLI's process, for `run` and `demo` on a machine with no worker running. */
export async function startLocalWorker(
  config: ConnectionConfig,
  taskQueue: string,
  provider: ProviderConfig,
  log: (line: string) => void = () => undefined,
  /** Workflow code bundled beforehand (the demo bundles while the server starts); else the cached bundle (built here once per source version). */
  workflowBundle?: { code: string } | { codePath: string },
): Promise<LocalWorker> {
  installQuietRuntime();
  await ensureSearchAttributes(config.address, config.namespace).catch(() => []);
  const connection = await NativeConnection.connect(connectionOptions(config.address));
  const dataConverter = dataConverterFromEnv();
  const versioning = versioningFromEnv();
  const versioned = versioning ? await resolveWorkerVersion(versioning) : undefined;
  const worker = await createBareAgentWorker({
    connection,
    namespace: config.namespace,
    taskQueue,
    provider,
    identity: `${IN_PROCESS_WORKER_PREFIX}${process.pid}@${os.hostname()}`,
    ...(dataConverter ? { dataConverter } : {}),
    ...(versioned ? { workflowBundle: { codePath: versioned.codePath }, versioning: versioned.version } : {}),
    ...(!versioned ? { workflowBundle: workflowBundle ?? { codePath: await cachedWorkflowBundle() } } : {}),
  });
  const running = worker.run();
  const stop = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
    await connection.close();
  };
  // The run this worker is started for goes to the current version: make it this one first (when due).
  if (versioning && versioned) await applySetCurrentPolicy(connection.workflowService, config.namespace, versioning, versioned.version, log).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { worker, stop };
}
