import { patched } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import type { SandboxRequest } from '../common/sandbox';
import { listMcpTools } from './mcp-tools';
import { RUN_START_TOGETHER } from './patches';
import { readInstructions } from './project-instructions';
import { readEnvironment } from './run-environment';
import { readHooks } from './run-hooks';
import type { RunState } from './run-state';

/**
 * What a new run reads from its workspace before its first turn: the MCP servers' tools, AGENTS.md,
 * the hooks and the environment of the default system prompt. Side by side, and as local activities when the run's own worker holds the
 * workspace (no `toolTaskQueue`); runs recorded before read them one after the other.
 */
export async function readRunStart(config: Omit<AgentRunConfig, 'resume'>, sandbox: SandboxRequest, state: RunState): Promise<void> {
  if (!patched(RUN_START_TOGETHER)) {
    state.mcp = await listMcpTools(config, sandbox);
    state.instructions = await readInstructions(config);
    state.hooks = await readHooks(config);
    return;
  }
  const local = !config.toolTaskQueue;
  let environment;
  [state.mcp, state.instructions, state.hooks, environment] = await Promise.all([
    listMcpTools(config, sandbox, local),
    readInstructions(config, local),
    readHooks(config, local),
    readEnvironment(config, local),
  ]);
  if (environment) state.environment = environment;
}
