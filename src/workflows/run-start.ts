import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { FailureType } from '../common/failures';
import type { AgentRunConfig } from '../common/input';
import type { SandboxRequest } from '../common/sandbox';
import { readInstructions } from './project-instructions';
import { readEnvironment } from './run-environment';
import { invalidInput } from './failures';
import type { RunState } from './run-state';
import { applyWorkspaceSettings, type AskAboutSettings } from './workspace-settings';

/**
 * What a new run reads from its workspace before its first turn: the workspace settings (hooks and
 * MCP servers, a snapshot the human may be asked about, see workspace-settings.ts), AGENTS.md and the
 * environment of the default system prompt, side by side, as local activities when the run's own
 * worker holds the workspace (no `toolTaskQueue`). Runs recorded before the snapshot read MCP tools
 * and hooks as they went; runs recorded before that, one after the other.
 */
export async function readRunStart(config: Omit<AgentRunConfig, 'resume'>, sandbox: SandboxRequest, state: RunState, ask: AskAboutSettings): Promise<void> {
  try {
    await readAll(config, sandbox, state, ask);
  } catch (err) {
    throw refusedWorkspace(err) ?? err;
  }
}

/**
 * The worker refuses a workspace that overlaps the operator's state (src/activities/tools/workspace.ts)
 * with a non-retryable InvalidInput: the run fails with it at once, before its first turn.
 */
function refusedWorkspace(err: unknown): ApplicationFailure | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  return cause instanceof ApplicationFailure && cause.type === FailureType.InvalidInput ? invalidInput(cause.message) : undefined;
}

async function readAll(config: Omit<AgentRunConfig, 'resume'>, sandbox: SandboxRequest, state: RunState, ask: AskAboutSettings): Promise<void> {
  const local = !config.toolTaskQueue;
  const [, instructions, environment] = await Promise.all([
    applyWorkspaceSettings(config, sandbox, state, local, ask),
    readInstructions(config, local),
    readEnvironment(config, local),
  ]);
  state.instructions = instructions;
  if (environment) state.environment = environment;
}
