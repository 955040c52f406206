import type { WorkflowService } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type Timestamp = temporal.api.deployment.v1.WorkerDeploymentInfo.WorkerDeploymentVersionSummary['createTime'];

export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

export type MakeCurrentOutcome = 'was-current' | 'made-current' | 'newer-is-current';

/**
 * The `auto` policy, run by a worker once it polls: its version becomes the deployment's current
 * one when there is none (the first deploy) or when the current one was first seen before this
 * one (a new build rolled out); an older build that restarts during a roll-out never takes
 * routing back. New runs then start on this build while pinned runs stay where they are.
 * The server knows a version only after its first poll, and refuses to make current a version
 * it has seen no poller of: both are waited for, up to `timeoutMs`.
 */
export async function makeCurrentWhenDue(
  service: WorkflowService,
  namespace: string,
  version: DeploymentVersion,
  options: { identity: string; timeoutMs?: number; pauseMs?: number },
): Promise<MakeCurrentOutcome> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    try {
      const outcome = await attempt(service, namespace, version, options.identity);
      if (outcome) return outcome;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
    }
    if (Date.now() >= deadline) throw new Error(`version ${version.buildId} of deployment ${version.deploymentName} was not registered within the time allowed`);
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 500));
  }
}

async function attempt(service: WorkflowService, namespace: string, version: DeploymentVersion, identity: string): Promise<MakeCurrentOutcome | undefined> {
  const { workerDeploymentInfo: info, conflictToken } = await service.describeWorkerDeployment({ namespace, deploymentName: version.deploymentName });
  const summaries = info?.versionSummaries ?? [];
  const ours = summaries.find((s) => s.deploymentVersion?.buildId === version.buildId);
  if (!ours) return undefined; // not registered yet
  const currentBuild = info?.routingConfig?.currentDeploymentVersion?.buildId;
  if (currentBuild === version.buildId) return 'was-current';
  const current = summaries.find((s) => s.deploymentVersion?.buildId === currentBuild);
  if (current && millis(current.createTime) > millis(ours.createTime)) return 'newer-is-current';
  await service.setWorkerDeploymentCurrentVersion({ namespace, deploymentName: version.deploymentName, buildId: version.buildId, conflictToken, identity });
  return 'made-current';
}

function millis(ts: Timestamp): number {
  return Number(ts?.seconds ?? 0) * 1000 + (ts?.nanos ?? 0) / 1e6;
}
