import type { AgentRunConfig } from '../common/input';
import type { LLMResponse } from '../common/messages';
import type { ReadAheadRequest, ReadAheadResult } from '../common/read-ahead';
import { READ_ONLY_TOOLS } from '../common/tool-schemas';
import { hooksFor } from '../loop/hook-decisions';
import { findMcpTool } from './mcp-tools';
import type { RunState } from './run-state';

/**
 * What the run's next model call may read ahead: its read-only built-in tools, which would run as
 * local activities on the run's own worker. Nothing when its tools run on a tool worker (the model
 * call's worker may not hold the workspace), or when a PreToolUse hook is asked before each call
 * (a read it blocks must not have been read).
 */
export function readAheadRequest(config: Omit<AgentRunConfig, 'resume'>, state: RunState, offered: ReadonlySet<string>): ReadAheadRequest | undefined {
  if (config.toolTaskQueue) return undefined;
  if (hooksFor(state.hooks?.hooks, 'PreToolUse').length > 0) return undefined;
  const tools = [...READ_ONLY_TOOLS].filter((name) => offered.has(name) && !findMcpTool(state.mcp, name));
  if (tools.length === 0) return undefined;
  const deny = config.permissionRules.deny ?? [];
  return { ...(config.workspace ? { workspace: config.workspace } : {}), tools, mode: config.permissionMode, ...(deny.length > 0 ? { deny } : {}) };
}

/**
 * The reply's reads run ahead, by the id each call has once ids were made unique (the reply's
 * calls in the same order), taken off the reply.
 */
export function takeReadAhead(response: LLMResponse): ReadonlyMap<string, ReadAheadResult> {
  const found = response.readAhead;
  delete response.readAhead;
  const byId = new Map<string, ReadAheadResult>();
  if (!found) return byId;
  response.toolCalls.forEach((call, index) => {
    const read = found[index];
    if (read) byId.set(call.id, read);
  });
  return byId;
}

/** The outcome read ahead for a call, when it ran with the very arguments the workflow would run it with. */
export function readAheadOutcome(read: ReadAheadResult | undefined, input: unknown): ReadAheadResult['outcome'] | undefined {
  if (!read) return undefined;
  return JSON.stringify(read.input) === JSON.stringify(input) ? read.outcome : undefined;
}
