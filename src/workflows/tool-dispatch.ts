import { describeIssues } from '../common/input';
import { type ToolCall, type ToolResultBlock } from '../common/messages';
import type { CheckpointRequest, CheckpointResult } from '../common/checkpoint';
import type { SandboxKind, SandboxRequest } from '../common/sandbox';
import type { ToolOutcome } from '../common/tool-outcome';
import { AT_MOST_ONCE_TOOLS, isToolName, READ_ONLY_TOOLS, toolSchemas, toolSummary, WORKFLOW_TOOL_NAMES, type ToolName } from '../common/tool-schemas';
import type { PermissionDecision } from '../loop/permissions';
import { deniedResult, handlerErrorResult, hookBlockedResult, toolResult, unknownToolResult } from '../loop/tool-results';
import { localReadTools, onceTools, repeatableTools } from './activity-proxies';
import { attempt } from './failures';

export interface DispatchContext {
  workspace: string | undefined;
  /** Where tool activities run: the worker that holds the workspace (default: the run's own queue). */
  toolTaskQueue: string | undefined;
  /** How the run's commands are confined (network, read-only paths, writable workspace). */
  sandbox: SandboxRequest;
  /** Told how the worker confined a command it ran (for `status` and the step records). */
  observeSandbox(kind: SandboxKind): void;
  /** The tools this run offers (its agent type's subset); any other name is unknown here. */
  offered: ReadonlySet<string>;
  checkPermission(name: string, input: unknown): PermissionDecision;
  /** Asks a human; resolves to whether the call may run. */
  askHuman(call: ToolCall, parsedInput: unknown, decision: PermissionDecision): Promise<boolean>;
  /** Whether the conversation read or wrote this file already: edit_file's miss says so when it did not. */
  fileRead?(path: string): boolean;
  /** Tools the workflow runs itself (child workflows). */
  runWorkflowTool(name: ToolName, input: unknown): Promise<ToolOutcome>;
  /** Once the guard (or a human) let the call through: the PreToolUse hooks, whose reason, if any, blocks it. */
  beforeRun?(call: ToolCall): Promise<string | undefined>;
  /** The call's idempotency key (BAREAGENT_CALL_ID for bash). */
  callKey(call: ToolCall): string;
  /** An at-most-once call failed: what is known when its worker was lost, as a sentence for the model. */
  atMostOnceFailed(call: ToolCall, summary: string, startedAtMs: number, err: unknown): Promise<string>;
  /** The checkpoint a write_file, edit_file or bash activity takes after it ran, if any; called just before it is scheduled. */
  checkpointRequest?(name: ToolName): CheckpointRequest | undefined;
  /** The checkpoint that came back with a tool's result. */
  onCheckpoint?(call: ToolCall, result: CheckpointResult): void;
}

/**
 * One tool call, in the seed's order: permission guard, human if asked, handler by name,
 * run, collect. Every outcome is a tool_result: a failing tool never stops the loop.
 */
export async function dispatchToolCall(call: ToolCall, context: DispatchContext): Promise<ToolResultBlock> {
  if (!isToolName(call.name) || !context.offered.has(call.name)) return unknownToolResult(call.id, call.name);
  if (call.parseError) return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${call.parseError}`);
  const parsed = toolSchemas[call.name].safeParse(call.input);
  if (!parsed.success) {
    return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${describeIssues(parsed.error)}`);
  }
  const blank = blankArgument(parsed.data);
  if (blank) return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${blank}: must not be blank`);
  const decision = context.checkPermission(call.name, parsed.data);
  if (decision.behavior === 'deny') return deniedResult(call.id);
  if (decision.behavior === 'ask' && !(await context.askHuman(call, parsed.data, decision))) {
    return deniedResult(call.id);
  }
  const blocked = await context.beforeRun?.(call);
  if (blocked !== undefined) return hookBlockedResult(call.id, blocked);
  const name = call.name;
  const startedAt = Date.now();
  const ran = await attempt(() => (WORKFLOW_TOOL_NAMES.has(name) ? context.runWorkflowTool(name, parsed.data) : runToolActivity(name, parsed.data, context, context.callKey(call))));
  if (!ran.ok) {
    const known = AT_MOST_ONCE_TOOLS.has(name) ? await context.atMostOnceFailed(call, toolSummary(name, parsed.data, 200), startedAt, ran.error) : '';
    return handlerErrorResult(call.id, ran.type, ran.message + known);
  }
  const outcome = ran.value;
  if (outcome.checkpoint) context.onCheckpoint?.(call, outcome.checkpoint);
  if (!outcome.ok) return handlerErrorResult(call.id, outcome.errorType, outcome.message);
  if (outcome.sandbox) context.observeSandbox(outcome.sandbox);
  return toolResult(call.id, outcome.output, outcome.isError ?? false);
}

/** A blank command or path names nothing a human could judge: `bash {"command":" "}` is not a call to approve. */
function blankArgument(input: unknown): string | undefined {
  const args = input as Record<string, unknown>;
  for (const field of ['command', 'file_path']) {
    const value = args[field];
    if (typeof value === 'string' && value.trim() === '') return field;
  }
  return undefined;
}

/** The tools whose activity takes the round's checkpoint itself, when the round can use it. */
const CHECKPOINTING_TOOLS = new Set<string>(['write_file', 'edit_file', 'bash']);

function runToolActivity(name: ToolName, input: unknown, { workspace, toolTaskQueue, sandbox, fileRead, checkpointRequest }: DispatchContext, callId: string): Promise<ToolOutcome> {
  const local = READ_ONLY_TOOLS.has(name) && !toolTaskQueue;
  const proxy = local ? localReadTools : AT_MOST_ONCE_TOOLS.has(name) ? onceTools : repeatableTools;
  const options = {
    summary: toolSummary(name, input),
    ...(toolTaskQueue ? { taskQueue: toolTaskQueue } : {}),
    ...(name === 'bash' ? { startToCloseTimeout: `${(input as { timeout: number }).timeout + 30} seconds` } : {}),
  };
  const activity = proxy[name as keyof typeof proxy] as unknown as {
    executeWithOptions(options: object, args: unknown[]): Promise<ToolOutcome>;
  };
  const read = name === 'edit_file' && fileRead ? { fileRead: fileRead((input as { file_path: string }).file_path) } : {};
  const checkpoint = CHECKPOINTING_TOOLS.has(name) ? checkpointRequest?.(name) : undefined;
  return activity.executeWithOptions(options, [{ ...(workspace ? { workspace } : {}), input, ...(name === 'bash' ? { sandbox, callId } : {}), ...read, ...(checkpoint ? { checkpoint } : {}) }]);
}
