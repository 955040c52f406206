import type { WorkflowExecutionDescription, WorkflowExecutionInfo } from '@temporalio/client';
import type { DeploymentVersion } from '../worker/make-current';

type VersioningInfo = NonNullable<WorkflowExecutionInfo['raw']['versioningInfo']>;

/** The Worker Deployment version a run is on (Worker Versioning), from its description or list entry. */
export function runVersion(run: WorkflowExecutionDescription | WorkflowExecutionInfo): DeploymentVersion | undefined {
  const raw = run.raw as { workflowExecutionInfo?: { versioningInfo?: VersioningInfo | null }; versioningInfo?: VersioningInfo | null };
  const info = raw.workflowExecutionInfo?.versioningInfo ?? raw.versioningInfo;
  const version = info?.deploymentVersion;
  return version?.buildId && version.deploymentName ? { deploymentName: version.deploymentName, buildId: version.buildId } : undefined;
}

/** `deployment:build`, as the TemporalWorkerDeploymentVersion search attribute spells it; empty for an unversioned run. */
export function versionLabel(run: WorkflowExecutionDescription | WorkflowExecutionInfo): string {
  const version = runVersion(run);
  if (version) return `${version.deploymentName}:${version.buildId}`;
  // A closed run's list entry carries its version only as a search attribute.
  const attribute = run.searchAttributes?.TemporalWorkerDeploymentVersion?.[0];
  return typeof attribute === 'string' ? attribute : '';
}
