import type { CheckpointRequest } from '../common/checkpoint';
import type { SandboxRequest } from '../common/sandbox';
import type { ToolOutcome } from '../common/tool-outcome';
import { builtInDescriptor, isToolName, toolEffects, toolSchemas, toolSummary, type ToolName } from '../common/tool-schemas';
import type { checkPermission, PermissionPolicy } from '../loop/permissions';
import { localReadTools, onceTools, repeatableTools } from './activity-proxies';
import { checkArguments } from '../common/tool-arguments';
import type { ToolKind } from './tool-dispatch';

export interface BuiltInToolContext {
  workspace: string | undefined;
  /** Where tool activities run: the worker that holds the workspace (default: the run's own queue). */
  toolTaskQueue: string | undefined;
  /** How the run's commands are confined (network, read-only paths, writable workspace). */
  sandbox: SandboxRequest;
  /** The tools this run offers (its agent type's subset); any other name is unknown here. */
  offered: ReadonlySet<string>;
  policy: PermissionPolicy;
  guard: typeof checkPermission;
  /** Whether the conversation read or wrote this file already: edit_file's miss says so when it did not. */
  fileRead?(path: string): boolean;
  /** Whether the conversation's own earlier edit_file of this file replaced text holding old_text: a miss says so. */
  changedByEarlierEdit?(path: string, oldText: string): boolean;
  /** write_file, edit_file: a grep of the whole workspace would run unasked, so their results name the lines still using a name they dropped. */
  searchUsers?: boolean;
  /** What the model call read ahead for this call, when it ran with these arguments (src/workflows/read-ahead.ts). */
  readAhead?(input: unknown): ToolOutcome | undefined;
  /** Tools the workflow runs itself (child workflows). */
  runWorkflowTool(name: ToolName, input: unknown): Promise<ToolOutcome>;
  /** The call's idempotency key (BAREAGENT_CALL_ID for a command). */
  callKey: string;
  /** The checkpoint a writing tool's activity takes after it ran, if any; called just before it is scheduled. */
  checkpointRequest?(): CheckpointRequest | undefined;
}

/** A built-in tool this run offers: its schema, the guard, and its activity or child workflow. */
export function builtInTool(name: string, context: BuiltInToolContext): ToolKind | undefined {
  if (!isToolName(name) || !context.offered.has(name)) return undefined;
  const effect = toolEffects[name];
  return {
    effect,
    validate: (input) => validate(name, input),
    decide: (args) => context.guard(context.policy, name, args),
    execute: (args) => (effect === 'workflow' ? context.runWorkflowTool(name, args) : runToolActivity(name, args, context)),
    describe: (args) => toolSummary(name, args, 200),
  };
}

function validate(name: ToolName, input: unknown): { args: unknown } | { invalid: string } {
  return checkArguments(builtInDescriptor(name), toolSchemas[name], input);
}

function runToolActivity(name: ToolName, input: unknown, { workspace, toolTaskQueue, sandbox, fileRead, changedByEarlierEdit, searchUsers, readAhead, checkpointRequest, callKey: callId }: BuiltInToolContext): Promise<ToolOutcome> {
  const { effect, commandArgument, pathArgument } = builtInDescriptor(name);
  // A command runs in the sandbox, for as long as its own timeout allows.
  const command = commandArgument !== undefined;
  const local = effect === 'read' && !toolTaskQueue;
  const readEarlier = local ? readAhead?.(input) : undefined;
  if (readEarlier) return Promise.resolve(readEarlier);
  const proxy = local ? localReadTools : effect === 'once' ? onceTools : repeatableTools;
  const options = {
    summary: toolSummary(name, input),
    ...(toolTaskQueue ? { taskQueue: toolTaskQueue } : {}),
    ...(command ? { startToCloseTimeout: `${(input as { timeout: number }).timeout + 30} seconds` } : {}),
  };
  // Every tool activity is registered: the worker does not start without it (src/worker/tool-activity-check.ts).
  const activity = proxy[name as keyof typeof proxy] as unknown as {
    executeWithOptions(options: object, args: unknown[]): Promise<ToolOutcome>;
  };
  const edit = name === 'edit_file' ? (input as { file_path: string; old_text: string }) : undefined;
  const read = edit && fileRead ? { fileRead: fileRead(edit.file_path) } : {};
  const changed = edit && changedByEarlierEdit?.(edit.file_path, edit.old_text) ? { changedByEarlierEdit: true } : {};
  const users = searchUsers && pathArgument !== undefined && effect !== 'read' ? { searchUsers: true } : {};
  // A tool activity that may write takes the round's checkpoint itself, when the round can use it.
  const checkpoint = effect === 'repeatable' || effect === 'once' ? checkpointRequest?.() : undefined;
  return activity.executeWithOptions(options, [{ ...(workspace ? { workspace } : {}), input, ...(command ? { sandbox, callId } : {}), ...(!command && pathArgument && effect !== 'read' && sandbox.readOnlyFiles ? { sandbox } : {}), ...read, ...changed, ...users, ...(checkpoint ? { checkpoint } : {}) }]);
}
