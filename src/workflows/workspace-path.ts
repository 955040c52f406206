import type { AgentRunConfig } from '../common/input';
import type { RunState } from './run-state';

/**
 * The one workspace path of a run: the canonical path the worker resolved, and checked against the
 * operator's state, when it read the run's settings at its start. From then on every activity of
 * the run (tools, checkpoints, hooks, MCP servers, subagents and jobs through their input) gets this
 * path, never the one given in the input, so a link re-pointed after the start moves nothing. Kept
 * in the state (`workspacePath`, as a fork's authorised path is) and so carried across
 * continue-as-new. A run recorded before the read returned its path has none and works as it did.
 */
export function adoptWorkspace(config: Omit<AgentRunConfig, 'resume'>, state: RunState, root: string): void {
  config.workspace = root;
  state.workspacePath = root;
}

/**
 * The run-start reads that ran beside the settings read (the step-0 checkpoint, the workspace
 * listing, AGENTS.md) resolved the given path on their own: each returns the root it used. One
 * that differs from the adopted path means the path moved while the run started; the run is
 * refused rather than work from files of two folders.
 */
export function workspaceMoved(state: RunState): string | undefined {
  const adopted = state.workspacePath;
  if (adopted === undefined) return undefined;
  const others: Array<[string, string | undefined]> = [
    ['the run-start checkpoint', state.checkpoints?.workspace],
    ['the workspace listing', state.environment?.workspace],
    ['AGENTS.md', state.instructions?.workspace],
  ];
  for (const [what, root] of others) {
    if (root !== undefined && root !== adopted) {
      return `workspace: the given path resolved to ${adopted} for the settings read and to ${root} for ${what}: it changed while the run started (a link re-pointed?); start the run with the folder's real path`;
    }
  }
  return undefined;
}
