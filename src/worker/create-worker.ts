import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { createActivities, createToolActivities } from '../activities';
import { McpConnections } from '../activities/mcp/connections';
import type { ProviderConfig } from '../connection/provider-config';
import type { DeploymentVersion } from './make-current';
import type { Tracing } from './tracing';
import { pinnedDeploymentOptions } from './worker-versioning';
import { tracingSinks } from './tracing-sinks';
import { maxCachedWorkflowsFromEnv } from './cache-size';
import { payloadConverterPath, preloadedWorkflowModules, workflowInterceptorModules, workflowsPath } from './workflow-bundle';

export interface BareAgentWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  provider: ProviderConfig;
  /** A prebuilt bundle (tests, benchmarks); otherwise the workflows are bundled at start. */
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

export async function createBareAgentWorker(options: BareAgentWorkerOptions): Promise<Worker> {
  const mcp = new McpConnections();
  const maxCachedWorkflows = maxCachedWorkflowsFromEnv();
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createActivities({ provider: options.provider, mcp, notifyWebhook: options.notifyWebhook ?? (process.env.BAREAGENT_NOTIFY_WEBHOOK || undefined) }),
    dataConverter: withTolerantConverter(options.dataConverter),
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: workflowsPath(), bundlerOptions: { preloadModules: preloadedWorkflowModules() } }),
    interceptors: {
      activity: options.tracing?.activityInterceptors(options.provider.defaultModel, options.provider.defaultProvider) ?? [],
      // A prebuilt bundle has them already (bundleOptions).
      ...(options.workflowBundle ? {} : { workflowModules: workflowInterceptorModules() }),
    },
    sinks: tracingSinks(options.tracing),
    // Cancellation reaches an activity with its next heartbeat: a cancelled job's process is
    // killed within about a second instead of 80% of its heartbeat timeout (measured 9 s before).
    maxHeartbeatThrottleInterval: '1 second',
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.versioning ? { workerDeploymentOptions: pinnedDeploymentOptions(options.versioning.deploymentName, options.versioning.buildId) } : {}),
    ...(maxCachedWorkflows !== undefined ? { maxCachedWorkflows } : {}),
    ...options.tuning,
  });
  return closingMcpOnStop(worker, mcp);
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
    activities: createToolActivities(undefined, mcp),
    interceptors: { activity: options.tracing?.activityInterceptors(undefined) ?? [] },
    dataConverter: withTolerantConverter(options.dataConverter),
    maxHeartbeatThrottleInterval: '1 second',
  });
  return closingMcpOnStop(worker, mcp);
}
