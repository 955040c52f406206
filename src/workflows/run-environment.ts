import type { AgentRunConfig } from '../common/input';
import type { RunEnvironment } from '../common/run-environment';
import { defaultSystemPrompt, runContext } from '../loop/system-prompt';
import { instructionReading, readAtRunStart } from './activity-proxies';
import { attempt } from './failures';
import type { RunState } from './run-state';

/**
 * At the start of a new run: the workspace listing and the tool worker's OS, read by the worker
 * that holds the workspace and recorded, plus the date in workflow time. Not read when the run
 * replaces the default prompt (`systemPrompt`). A failed read leaves the run without the default
 * prompt rather than failing it.
 */
export async function readEnvironment(config: Omit<AgentRunConfig, 'resume'>, local = false): Promise<RunEnvironment | undefined> {
  if (config.systemPrompt !== undefined) return undefined;
  const read = await attempt(() =>
    readAtRunStart('readRunEnvironment', { local, remote: instructionReading, toolTaskQueue: config.toolTaskQueue }, 'workspace listing for the system prompt', [
      config.workspace ? { workspace: config.workspace } : {},
    ]),
  );
  if (!read.ok) return undefined;
  return { ...read.value, date: new Date(Date.now()).toISOString().slice(0, 10) };
}

/**
 * The run's own part of the system prompt: the input's `systemPrompt` where given, else the
 * default built from the recorded environment (none for runs recorded before it), then
 * `appendSystemPrompt`. AGENTS.md and MCP notes follow it (ModelTurn).
 */
export function basePrompt(config: Omit<AgentRunConfig, 'resume'>, state: RunState, sandbox: Parameters<typeof defaultSystemPrompt>[0]['sandbox'], tools: ReadonlySet<string>): string | undefined {
  const base =
    config.systemPrompt ??
    (state.environment
      ? defaultSystemPrompt({ environment: state.environment, agentType: config.agentType, depth: config.depth, permissionMode: config.permissionMode, sandbox, tools })
      : undefined);
  return [base, config.appendSystemPrompt].filter(Boolean).join('\n\n') || undefined;
}

/**
 * The run's context at the head of its first message (workspace, date, OS, sandbox, mode, listing):
 * with the default prompt only, and only for runs whose environment was recorded.
 */
export function contextPrompt(config: Omit<AgentRunConfig, 'resume'>, state: RunState, sandbox: Parameters<typeof runContext>[0]['sandbox'], tools: ReadonlySet<string>): string | undefined {
  if (config.systemPrompt !== undefined || !state.environment) return undefined;
  return runContext({ environment: state.environment, agentType: config.agentType, depth: config.depth, permissionMode: config.permissionMode, sandbox, tools });
}
