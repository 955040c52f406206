import type { CheckpointResult } from '../common/checkpoint';
import type { ToolCall, ToolResultBlock } from '../common/messages';
import type { SandboxKind } from '../common/sandbox';
import type { ToolOutcome } from '../common/tool-outcome';
import type { ToolEffect } from '../common/tool-schemas';
import type { PermissionDecision } from '../loop/permissions';
import { deniedResult, handlerErrorResult, hookBlockedResult, toolResult, unknownToolResult } from '../loop/tool-results';
import { attempt } from './failures';
import type { RunHooks } from './run-hooks';
import { READ_ONLY_FILE } from '../loop/action-failures';

/** What one kind of tool (built-in, MCP) brings to a call; the pipeline around it is the same for all. */
export interface ToolKind {
  /** What the tool may do: an at-most-once (`once`) call that lost its worker is told, never retried. */
  effect: ToolEffect;
  /** The arguments the tool runs with, or what is wrong with them. */
  validate(input: unknown): { args: unknown } | { invalid: string };
  decide(args: unknown): PermissionDecision;
  execute(args: unknown): Promise<ToolOutcome>;
  /** The call as an at-most-once failure names it to the model. */
  describe(args: unknown): string;
}

export interface DispatchContext {
  /** Asks a human; resolves to whether the call may run. */
  askHuman(call: ToolCall, parsedInput: unknown, decision: PermissionDecision): Promise<boolean>;
  hooks: Pick<RunHooks, 'preToolUse' | 'postToolUse'>;
  /** An at-most-once call failed: what is known when its worker was lost, as a sentence for the model. */
  atMostOnceFailed(call: ToolCall, summary: string, startedAtMs: number, err: unknown): Promise<string>;
  /** The checkpoint that came back with a tool's result. */
  onCheckpoint(call: ToolCall, result: CheckpointResult): void;
  /** Told how the worker confined a command it ran (for `status` and the step records). */
  observeSandbox(kind: SandboxKind): void;
  /** Why the run refuses this call whatever the guard says (a write of a file the acceptance check runs), if it does. */
  refusal(call: ToolCall, args: unknown): string | undefined;
}

/**
 * One tool call, built-in or MCP: validate, the guard, a human if it asks, the PreToolUse hooks,
 * the tool, the PostToolUse hooks. Every outcome is a tool_result: a failing tool never stops the loop.
 */
export async function dispatchToolCall(call: ToolCall, kind: ToolKind | undefined, context: DispatchContext): Promise<ToolResultBlock> {
  if (!kind) return unknownToolResult(call.id, call.name);
  const checked = call.parseError ? { invalid: call.parseError } : kind.validate(call.input);
  if ('invalid' in checked) return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${checked.invalid}`);
  const refused = context.refusal(call, checked.args);
  if (refused !== undefined) return handlerErrorResult(call.id, READ_ONLY_FILE, refused);
  const decision = kind.decide(checked.args);
  if (decision.behavior === 'deny') return deniedResult(call.id);
  if (decision.behavior === 'ask' && !(await context.askHuman(call, checked.args, decision))) return deniedResult(call.id);
  // Only once the guard (or a human) let the call through, never for unknown tools.
  const blocked = await context.hooks.preToolUse(call);
  if (blocked !== undefined) return hookBlockedResult(call.id, blocked);
  const result = await run(call, kind, checked.args, context);
  const feedback = await context.hooks.postToolUse(call, result);
  if (feedback.length > 0) result.content += `\n\n[PostToolUse hook] ${feedback.join('\n')}`;
  return result;
}

async function run(call: ToolCall, kind: ToolKind, args: unknown, context: DispatchContext): Promise<ToolResultBlock> {
  const startedAt = Date.now();
  const ran = await attempt(() => kind.execute(args));
  if (!ran.ok) {
    const known = kind.effect === 'once' ? await context.atMostOnceFailed(call, kind.describe(args), startedAt, ran.error) : '';
    return handlerErrorResult(call.id, ran.type, ran.message + known);
  }
  const outcome = ran.value;
  if (outcome.checkpoint) context.onCheckpoint(call, outcome.checkpoint);
  if (!outcome.ok) return handlerErrorResult(call.id, outcome.errorType, outcome.message);
  if (outcome.sandbox) context.observeSandbox(outcome.sandbox);
  return toolResult(call.id, outcome.output, outcome.isError ?? false);
}
