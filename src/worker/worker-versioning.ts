import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { packageVersion } from '../connection/package-version';

/**
 * Worker Versioning, on with BAREAGENT_WORKER_VERSIONING=1: the worker polls as one version
 * (deployment and build id) of a Worker Deployment, and every run it starts stays pinned to it.
 */
export interface VersioningConfig {
  deploymentName: string;
  /** BAREAGENT_BUILD_ID; otherwise derived from the workflow bundle the worker runs (buildIdOf). */
  buildId?: string;
  /** `auto`: the worker makes its version current when due (see make-current.ts); `never`: the operator does. */
  setCurrent: 'auto' | 'never';
}

export function versioningFromEnv(env = process.env): VersioningConfig | undefined {
  const flag = env.BAREAGENT_WORKER_VERSIONING ?? '';
  if (!['1', 'true', 'on'].includes(flag.toLowerCase())) return undefined;
  const setCurrent = env.BAREAGENT_SET_CURRENT || 'auto';
  if (setCurrent !== 'auto' && setCurrent !== 'never') throw new Error(`BAREAGENT_SET_CURRENT must be auto or never, not "${setCurrent}"`);
  return {
    deploymentName: env.BAREAGENT_DEPLOYMENT || 'bareagent',
    ...(env.BAREAGENT_BUILD_ID ? { buildId: env.BAREAGENT_BUILD_ID } : {}),
    setCurrent,
  };
}

/**
 * The package's version and the bundle's content, not its sources (`0.2.0-3f9a2b1c4d5e`): a change
 * that does not reach the workflow code keeps the build within a version.
 */
export function buildIdOf(bundlePath: string): string {
  return `${packageVersion()}-${createHash('sha256').update(readFileSync(bundlePath)).digest('hex').slice(0, 12)}`;
}

/** Runs of agentRun and backgroundJob (the worker's only workflows) are pinned to the version that started them. */
export function pinnedDeploymentOptions(deploymentName: string, buildId: string): WorkerDeploymentOptions {
  return { useWorkerVersioning: true, version: { deploymentName, buildId }, defaultVersioningBehavior: 'PINNED' };
}
