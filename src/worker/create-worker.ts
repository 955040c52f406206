import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { createToolActivities } from '../activities';
import { McpConnections } from '../activities/mcp/connections';
import type { ProviderConfig } from '../connection/provider-config';
import type { DeploymentVersion } from './make-current';
import type { Tracing } from './tracing';
import { pinnedDeploymentOptions } from './worker-versioning';
import { BareAgentPlugin } from './bareagent-plugin';
import { checkToolActivities } from './tool-activity-check';
import { maxCachedWorkflowsFromEnv } from './cache-size';
import { payloadConverterPath } from './workflow-bundle';
import { cachedWorkflowBundle } from './cached-bundle';

export interface BareAgentWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  provider: ProviderConfig;
  /** A prebuilt bundle (tests, benchmarks); otherwise the one cached for this source version (src/worker/cached-bundle.ts). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * With BAREAGENT_ENCRYPTION_KEY set: the encryption codec (see src/codec). It also covers what
   * activities publish to the run's stream, since they use this worker's client.
   */
  dataConverter?: DataConverter;
  /** How the server lists this worker among a task queue's pollers; the SDK's `pid@host` otherwise. */
  identity?: string;
  /** OpenTelemetry (src/worker/tracing.ts); off when absent. */
  tracing?: Tracing;
  /** Where to POST when a run waits for a human; default BAREAGENT_NOTIFY_WEBHOOK. */
  notifyWebhook?: string;
  /** Worker Versioning (see worker-versioning.ts): the version this worker polls as, its runs pinned to it. */
  versioning?: DeploymentVersion;
  tuning?: Partial<Pick<WorkerOptions, 'maxCachedWorkflows' | 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions'>>;
}

function withTolerantConverter(dataConverter: DataConverter | undefined): DataConverter {
  return { ...dataConverter, payloadConverterPath: payloadConverterPath() };
}

/** bareagent's own worker: the SDK's worker with `BareAgentPlugin`, on the workflows of this package. */
export async function createBareAgentWorker(options: BareAgentWorkerOptions): Promise<Worker> {
  const maxCachedWorkflows = maxCachedWorkflowsFromEnv();
  const plugin = new BareAgentPlugin({
    provider: options.provider,
    ...(options.notifyWebhook ? { notifyWebhook: options.notifyWebhook } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    plugins: [plugin],
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    // A prebuilt bundle has the interceptors and preloaded modules already (bundleOptions). Bundling
    // takes seconds: a restarted worker (a crash, a deploy) loads the cached one instead.
    workflowBundle: options.workflowBundle ?? { codePath: await cachedWorkflowBundle() },
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.versioning ? { workerDeploymentOptions: pinnedDeploymentOptions(options.versioning.deploymentName, options.versioning.buildId) } : {}),
    ...(maxCachedWorkflows !== undefined ? { maxCachedWorkflows } : {}),
    ...options.tuning,
  });
}

/** The MCP servers the worker started end with it, whoever runs it (CLI, tests): its `run()` closes them. */
function closingMcpOnStop(worker: Worker, mcp: McpConnections): Worker {
  const run = worker.run.bind(worker);
  worker.run = async () => {
    try {
      await run();
    } finally {
      await mcp.closeAll();
    }
  };
  return worker;
}

/**
 * An activity-only worker on the task queue of the machine that holds a workspace: runs with
 * `toolTaskQueue` set send their tools, background jobs and acceptance checks here.
 */
export async function createToolWorker(options: Pick<BareAgentWorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'dataConverter' | 'tracing'>): Promise<Worker> {
  const mcp = new McpConnections();
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: checkedToolActivities(createToolActivities(undefined, mcp)),
    interceptors: { activity: options.tracing?.activityInterceptors(undefined) ?? [] },
    dataConverter: withTolerantConverter(options.dataConverter),
    maxHeartbeatThrottleInterval: '1 second',
  });
  return closingMcpOnStop(worker, mcp);
}

function checkedToolActivities<T extends object>(activities: T): T {
  checkToolActivities(activities);
  return activities;
}
