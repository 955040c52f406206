import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { createActivities } from '../activities';
import { runCommand } from '../activities/commands';
import { toolActivities } from '../activities/tools';
import type { ProviderConfig } from '../activities/model/model-request';

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
  tuning?: Partial<Pick<WorkerOptions, 'maxCachedWorkflows' | 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions'>>;
}

export function workflowsPath(): string {
  return require.resolve('../workflows');
}

export function createBareAgentWorker(options: BareAgentWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createActivities({ provider: options.provider }),
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: workflowsPath() }),
    // Cancellation reaches an activity with its next heartbeat: a cancelled job's process is
    // killed within about a second instead of 80% of its heartbeat timeout (measured 9 s before).
    maxHeartbeatThrottleInterval: '1 second',
    ...options.tuning,
  });
}

/**
 * An activity-only worker on the task queue of the machine that holds a workspace: runs with
 * `toolTaskQueue` set send their tools, background jobs and acceptance checks here.
 */
export function createToolWorker(options: Pick<BareAgentWorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'dataConverter'>): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: { ...toolActivities, runCommand },
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    maxHeartbeatThrottleInterval: '1 second',
  });
}
