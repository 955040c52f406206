import { isCancellation } from '@temporalio/workflow';
import { type ToolCall, type ToolResultBlock } from '../common/messages';
import { describeIssues } from '../common/input';
import type { ToolOutcome } from '../common/tool-outcome';
import { isToolName, toolSchemas, toolSummary } from '../common/tool-schemas';
import type { PermissionDecision } from '../loop/permissions';
import { deniedResult, handlerErrorResult, toolResult, unknownToolResult } from '../loop/tool-results';
import { AT_MOST_ONCE_TOOLS, onceTools, repeatableTools } from './activity-proxies';
import { describeActivityFailure } from './run-failures';

export interface DispatchContext {
  workspace: string | undefined;
  /** Asks a human; resolves to whether the call may run. */
  askHuman(call: ToolCall, parsedInput: unknown, decision: PermissionDecision): Promise<boolean>;
  checkPermission(name: string, input: unknown): PermissionDecision;
}

/**
 * One tool call, in the seed's order: permission guard, human if asked, handler by name,
 * run, collect. Every outcome is a tool_result: a failing tool never stops the loop.
 */
export async function dispatchToolCall(call: ToolCall, context: DispatchContext): Promise<ToolResultBlock> {
  if (!isToolName(call.name)) return unknownToolResult(call.id, call.name);
  if (call.parseError) return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${call.parseError}`);
  const parsed = toolSchemas[call.name].safeParse(call.input);
  if (!parsed.success) {
    return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${describeIssues(parsed.error)}`);
  }
  const decision = context.checkPermission(call.name, parsed.data);
  if (decision.behavior === 'deny') return deniedResult(call.id);
  if (decision.behavior === 'ask' && !(await context.askHuman(call, parsed.data, decision))) {
    return deniedResult(call.id);
  }
  return runTool(call, parsed.data, context.workspace);
}

async function runTool(call: ToolCall, input: unknown, workspace: string | undefined): Promise<ToolResultBlock> {
  const name = call.name as keyof typeof repeatableTools;
  const proxy = AT_MOST_ONCE_TOOLS.has(name) ? onceTools : repeatableTools;
  const options = {
    summary: toolSummary(call.name, input),
    ...(name === 'bash' ? { startToCloseTimeout: `${(input as { timeout: number }).timeout + 30} seconds` } : {}),
  };
  const activity = proxy[name] as unknown as {
    executeWithOptions(options: object, args: unknown[]): Promise<ToolOutcome>;
  };
  try {
    const outcome = await activity.executeWithOptions(options, [{ ...(workspace ? { workspace } : {}), input }]);
    return outcome.ok ? toolResult(call.id, outcome.output) : handlerErrorResult(call.id, outcome.errorType, outcome.message);
  } catch (err) {
    if (isCancellation(err)) throw err;
    const { type, message } = describeActivityFailure(err);
    return handlerErrorResult(call.id, type, message);
  }
}
