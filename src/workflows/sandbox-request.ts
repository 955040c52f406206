import type { AgentRunConfig } from '../common/input';
import type { SandboxRequest } from '../common/sandbox';
import { acceptanceFiles } from '../loop/acceptance-files';

/**
 * What the run's commands are told about their sandbox. `plan` mode (and so every read-only
 * agent type, which runs in it) mounts the workspace read-only: the guard's "read-only" is then
 * also true for a command the guard misjudged. The files the acceptance command names are the
 * operator's check: read-only to the run's commands and file tools.
 */
export function sandboxRequest(config: Pick<AgentRunConfig, 'sandbox' | 'permissionMode' | 'acceptance' | 'inheritedReadOnlyFiles'>): SandboxRequest {
  // A subagent's are its parent's: a child must not change the check its parent is held to.
  const readOnlyFiles = [...new Set([...(config.inheritedReadOnlyFiles ?? []), ...acceptanceFiles(config.acceptance?.command)])];
  return {
    network: config.sandbox.network,
    readOnlyPaths: config.sandbox.readOnlyPaths,
    writableWorkspace: config.permissionMode !== 'plan',
    ...(config.sandbox.writableGit === true ? { writableGit: true } : {}),
    ...(readOnlyFiles.length > 0 ? { readOnlyFiles } : {}),
  };
}
