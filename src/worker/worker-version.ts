import type { WorkflowService } from '@temporalio/client';
import { cachedWorkflowBundle } from './cached-bundle';
import { makeCurrentWhenDue, type DeploymentVersion } from './make-current';
import { buildIdOf, type VersioningConfig } from './worker-versioning';

/** The bundle a versioned worker runs and the version it polls as. */
export interface WorkerVersion {
  codePath: string;
  version: DeploymentVersion;
}

/** The build id names the bundle the worker will run, so the bundle is built (or taken from the cache) first. */
export async function resolveWorkerVersion(config: VersioningConfig): Promise<WorkerVersion> {
  const codePath = await cachedWorkflowBundle();
  return { codePath, version: { deploymentName: config.deploymentName, buildId: config.buildId ?? buildIdOf(codePath) } };
}

/** After the worker's first polls: applies the BAREAGENT_SET_CURRENT policy and says what it did. */
export async function applySetCurrentPolicy(
  service: WorkflowService,
  namespace: string,
  config: VersioningConfig,
  version: DeploymentVersion,
  log: (line: string) => void,
): Promise<void> {
  const name = `build ${version.buildId} of deployment "${version.deploymentName}"`;
  if (config.setCurrent === 'never') {
    log(`Worker versioning: polling as ${name}; BAREAGENT_SET_CURRENT=never, so it serves new runs once made current by hand`);
    return;
  }
  const outcome = await makeCurrentWhenDue(service, namespace, version, { identity: `bareagent worker ${version.buildId}` });
  const said = { 'was-current': 'is the current version', 'made-current': 'is now the current version: new runs start on it', 'newer-is-current': 'is older than the current version: it serves the runs pinned to it only' }[outcome];
  log(`Worker versioning: ${name} ${said}`);
}
