import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AgentRunConfig } from '../common/input';
import { readAtRunStart } from './activity-proxies';
import type { RunState } from './run-state';

/** Resolving the path: a read, safe to repeat. */
const pathReading = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumAttempts: 3 } });

/**
 * The one workspace path of a conversation: resolved once (symlinks followed) by the worker that
 * holds the workspace at the top-level run's start, recorded, carried across continue-as-new, and
 * put in the run's config, so fork authorisation, tools, checkpoints, hooks, MCP servers, commands
 * and subagents all get it, and refuse it when it no longer resolves to itself. A workspace given
 * as a link that is flipped after the start therefore moves no activity to the other folder.
 * A subagent takes its parent's, already resolved, from its input.
 */
export async function fixWorkspacePath(config: Omit<AgentRunConfig, 'resume'>, state: RunState): Promise<void> {
  if (state.workspacePath === undefined && config.depth === 0) {
    const resolved = await readAtRunStart('resolveWorkspace', { local: !config.toolTaskQueue, remote: pathReading, toolTaskQueue: config.toolTaskQueue }, 'workspace path', [
      config.workspace ? { workspace: config.workspace } : {},
    ]);
    state.workspacePath = resolved.workspace;
  }
  if (state.workspacePath !== undefined) config.workspace = state.workspacePath;
}
