import type { AgentRunConfig } from '../common/input';
import type { SandboxRequest } from '../common/sandbox';

/**
 * What the run's commands are told about their sandbox. `plan` mode (and so every read-only
 * agent type, which runs in it) mounts the workspace read-only: the guard's "read-only" is then
 * also true for a command the guard misjudged.
 */
export function sandboxRequest(config: Pick<AgentRunConfig, 'sandbox' | 'permissionMode'>): SandboxRequest {
  return {
    network: config.sandbox.network,
    readOnlyPaths: config.sandbox.readOnlyPaths,
    writableWorkspace: config.permissionMode !== 'plan',
    ...(config.sandbox.writableGit === true ? { writableGit: true } : {}),
  };
}
