import type { Client } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../codec/data-converter';
import { connectionOptions } from '../connection/connection-options';
import { connectionFromEnv, type ConnectionConfig } from '../connection/config';
import { cachedWorkflowBundle } from '../worker/cached-bundle';
import { payloadConverterPath } from '../worker/create-worker';
import type { DeploymentVersion } from '../worker/make-current';
import { pinnedDeploymentOptions } from '../worker/worker-versioning';
import { runVersion } from './run-version';
import { tracingSinks } from '../worker/tracing-sinks';
import { hasLiveWorker, installQuietRuntime } from './local-stack';

/**
 * Queries a run, open or closed, with or without a worker on its task queue. Temporal answers a
 * query by handing it to a worker that polls the run's task queue, closed runs included; when
 * none may be there (the run is closed, or no poller is listed), a query-only worker (workflow
 * code, no activities) polls that queue in this process while the query waits, then stops.
 */
export async function queryRun<T, A extends unknown[]>(client: Client, workflowId: string, definition: QueryDefinition<T, A>, ...args: A): Promise<T> {
  const config = { ...connectionFromEnv(), namespace: client.options.namespace };
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const query = () => handle.query(definition, ...args);
  const open = description.status.name === 'RUNNING';
  // The server lists a stopped worker's pollers for minutes: for a closed run, never trust them.
  if (open && (await hasLiveWorker(client, config.namespace, description.taskQueue).catch(() => false))) {
    // A worker that died a minute ago is still listed: past a second (a live one answers in
    // milliseconds), ask again with our own polling too; whichever worker takes it answers alike.
    try {
      return await client.withDeadline(Date.now() + LIVE_WORKER_MS, query);
    } catch (err) {
      if (!isDeadline(err)) throw err;
    }
  }
  const worker = await startQueryWorker(config, description.taskQueue, runVersion(description));
  try {
    // Another reader's query worker can take this query as it shuts down and drop or fail it
    // ("Failed to query Workflow"): ask again while ours keeps polling (an answer takes < 1 s).
    // A query the workflow rejects or does not know is not a ServiceError and is not retried.
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.withDeadline(Date.now() + ATTEMPT_MS, query);
      } catch (err) {
        if (attempt >= ATTEMPTS || !(isDeadline(err) || (err as Error).name === 'ServiceError')) throw err;
      }
    }
  } finally {
    await worker.stop();
  }
}

const LIVE_WORKER_MS = 1000;
const ATTEMPT_MS = 3000;
const ATTEMPTS = 5;
/** The gRPC status code. */
const DEADLINE_EXCEEDED = 4;

function isDeadline(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown; message?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === DEADLINE_EXCEEDED || /deadline/i.test(String(e.message))) return true;
  }
  return false;
}

interface QueryWorker {
  stop(): Promise<void>;
}

/**
 * The server hands a pinned run's queries only to pollers of its version (an unversioned worker
 * never sees them): the query worker then polls as that version.
 */
async function startQueryWorker(config: Pick<ConnectionConfig, 'address' | 'namespace'>, taskQueue: string, version: DeploymentVersion | undefined): Promise<QueryWorker> {
  installQuietRuntime();
  const [codePath, connection] = await Promise.all([cachedWorkflowBundle(), NativeConnection.connect(connectionOptions(config.address))]);
  const dataConverter = dataConverterFromEnv();
  const worker = await Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue,
    workflowBundle: { codePath },
    dataConverter: { ...dataConverter, payloadConverterPath: payloadConverterPath() },
    sinks: tracingSinks(undefined),
    maxCachedWorkflows: 0,
    maxConcurrentWorkflowTaskExecutions: 2,
    ...(version ? { workerDeploymentOptions: pinnedDeploymentOptions(version.deploymentName, version.buildId) } : {}),
  });
  const running = worker.run();
  return {
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}
