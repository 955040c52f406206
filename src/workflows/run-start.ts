import { patched } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import type { SandboxRequest } from '../common/sandbox';
import { listMcpTools } from './mcp-tools';
import { RUN_START_TOGETHER } from './patches';
import { readInstructions } from './project-instructions';
import { readHooks } from './run-hooks';
import type { RunState } from './run-state';

/**
 * What a new run reads from its workspace before its first turn: the MCP servers' tools, AGENTS.md
 * and the hooks. Side by side, and as local activities when the run's own worker holds the
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
  [state.mcp, state.instructions, state.hooks] = await Promise.all([listMcpTools(config, sandbox, local), readInstructions(config, local), readHooks(config, local)]);
}
