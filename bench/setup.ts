/**
 * The bench's world: an in-memory dev server on free ports (the embedded server's flags, from
 * ensureDevServer, plus any dynamic config a measurement needs), the scripted model server
 * answering at once, the workflow code bundled once, and workers built by createBareAgentWorker.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, type Worker, type WorkerOptions } from '@temporalio/worker';
import { ensureDevServer, type DevServer } from '../src/server/dev-server';
import { createBareAgentWorker, type BareAgentWorkerOptions } from '../src/worker/create-worker';
import { bundleOptions } from '../src/worker/workflow-bundle';
import { freePort } from '../test/support/free-port';
import { ScriptedModelServer } from '../src/testing/scripted-model-server';
import { startTestCluster, stopTestCluster } from '../test/support/test-cluster';

export type DynamicConfig = Record<string, string | number | boolean>;

export interface ServerOptions {
  /** Eager activity dispatch: on by default, as in the embedded server (src/server/dev-server.ts). */
  eager?: boolean;
  /** More `--dynamic-config-value KEY=VALUE` flags (a later flag for the same key wins). */
  dynamicConfig?: DynamicConfig;
  /** A SQLite file as the embedded server uses, instead of memory. */
  persistent?: boolean;
  /** `--sqlite-pragma KEY=VALUE` flags (e.g. journal_mode=wal). */
  sqlitePragmas?: Record<string, string>;
  /** A fresh local cluster (the compose file's configuration) instead of a dev server; the options above do not apply. */
  cluster?: boolean;
}

export interface BenchServer {
  address: string;
  client: Client;
  native: NativeConnection;
  /** The flags added to the embedded server's own, for the report. */
  flags: string[];
  /** The `temporal server start-dev` process (its CPU time is part of what an iteration costs). */
  pid: number | undefined;
  stop(): Promise<void>;
}

export function dynamicConfigArgs(options: ServerOptions): string[] {
  const values: DynamicConfig = { ...(options.eager === false ? { 'system.enableActivityEagerExecution': false } : {}), ...options.dynamicConfig };
  return [
    ...Object.entries(values).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]),
    ...Object.entries(options.sqlitePragmas ?? {}).flatMap(([key, value]) => ['--sqlite-pragma', `${key}=${value}`]),
  ];
}

export async function startServer(options: ServerOptions = {}): Promise<BenchServer> {
  quietRuntime();
  if (options.cluster) return startClusterServer();
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-bench-'));
  // The bench's workers keep their checkpoint stores with its server, not in the operator's home.
  process.env.BAREAGENT_HOME ||= home;
  const address = `127.0.0.1:${await freePort()}`;
  const flags = dynamicConfigArgs(options);
  const server: DevServer = await ensureDevServer({
    address,
    uiPort: await freePort(),
    home,
    persistent: options.persistent ?? false,
    ...(options.sqlitePragmas ? { sqlitePragmas: options.sqlitePragmas } : {}),
    extraArgs: dynamicConfigArgs({ ...options, sqlitePragmas: undefined }),
    startTimeoutMs: 90_000,
    log: () => undefined,
  });
  if (server.reused) throw new Error(`${address} already had a Temporal server: the bench needs its own`);
  // Pages of a long history exceed grpc-js's default 4 MiB limit on what it receives.
  const connection = await Connection.connect({ address, channelArgs: { 'grpc.max_receive_message_length': 512 * 1024 * 1024 } });
  const native = await NativeConnection.connect({ address });
  return {
    address,
    client: new Client({ connection }),
    native,
    flags,
    pid: server.process?.pid,
    stop: async () => {
      await native.close();
      await connection.close();
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function startClusterServer(): Promise<BenchServer> {
  const { cluster } = await startTestCluster(() => undefined);
  const connection = await Connection.connect({ address: cluster.address, channelArgs: { 'grpc.max_receive_message_length': 512 * 1024 * 1024 } });
  const native = await NativeConnection.connect({ address: cluster.address });
  return {
    address: cluster.address,
    client: new Client({ connection }),
    native,
    flags: [`local cluster: Temporal ${cluster.spec.serverVersion} on PostgreSQL, the compose configuration`],
    pid: (await cluster.status()).server,
    stop: async () => {
      await native.close();
      await connection.close();
      await stopTestCluster(cluster);
    },
  };
}

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger((process.env.BENCH_LOG_LEVEL as 'ERROR') ?? 'ERROR') });
}

export interface Bundle {
  codePath: string;
  dispose(): void;
}

/** The workflow code bundled once for every worker of the bench, as `npm run worker` bundles it: bundleOptions() (interceptors, payload converter, preloaded modules). */
export async function productBundle(): Promise<Bundle> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-bench-bundle-'));
  const { code } = await bundleWorkflowCode({ ...bundleOptions(), logger: silentLogger });
  const codePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(codePath, code);
  return { codePath, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export const silentLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};

export function startModel(): Promise<ScriptedModelServer> {
  return ScriptedModelServer.start();
}

/** Worker options the bench varies (poller settings, cache size, slots...). */
export type WorkerTuning = Partial<WorkerOptions>;

export interface BenchWorker {
  worker: Worker;
  taskQueue: string;
  stop(): Promise<void>;
}

/**
 * The production worker (createBareAgentWorker) on its own task queue. `tuning` is spread into
 * Worker.create's options last, so any WorkerOptions key can be measured against the defaults.
 */
export async function startWorker(
  server: BenchServer,
  model: ScriptedModelServer,
  options: { taskQueue: string; bundle?: Bundle; tuning?: WorkerTuning },
): Promise<BenchWorker> {
  const worker = await createBareAgentWorker({
    connection: server.native,
    namespace: 'default',
    taskQueue: options.taskQueue,
    provider: { baseURL: model.url, requestTimeoutMs: 30_000 },
    ...(options.bundle ? { workflowBundle: { codePath: options.bundle.codePath } } : {}),
    ...(options.tuning ? { tuning: options.tuning as BareAgentWorkerOptions['tuning'] } : {}),
  });
  const running = worker.run();
  return {
    worker,
    taskQueue: options.taskQueue,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
