import { NativeConnection, type Worker } from '@temporalio/worker';
import { connectionOptions } from '../connection/connection-options';
import { workerIdentity } from '../connection/worker-identity';
import type { ConnectionConfig } from '../connection/config';
import type { ProviderConfig } from '../connection/provider-config';
import { dataConverterFromEnv } from '../codec/data-converter';
import { createBareAgentWorker } from '../worker/create-worker';
import { ensureSearchAttributes } from '../worker/ensure-search-attributes';
import { applySetCurrentPolicy, resolveWorkerVersion } from '../worker/worker-version';
import { versioningFromEnv } from '../worker/worker-versioning';
import { IN_PROCESS_WORKER_PREFIX } from '../runs/live-pollers';
import { installQuietRuntime } from '../runs/quiet-runtime';

export interface LocalWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/** A worker inside the CLI's process, for `run`, `demo` and `eval` on a machine with no worker running (loaded on use: src/cli/load-on-use.ts). */
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
    identity: workerIdentity(IN_PROCESS_WORKER_PREFIX),
    ...(dataConverter ? { dataConverter } : {}),
    // Without either, createBareAgentWorker loads the cached bundle.
    ...(versioned ? { workflowBundle: { codePath: versioned.codePath }, versioning: versioned.version } : workflowBundle ? { workflowBundle } : {}),
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
