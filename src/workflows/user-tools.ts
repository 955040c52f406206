import { z } from 'zod';
import type { CheckpointRequest } from '../common/checkpoint';
import { declaredArgument, userTool, type UserToolDescriptor } from '../common/tool-descriptors';
import type { ToolOutcome } from '../common/tool-outcome';
import { toolSummary } from '../common/tool-schemas';
import type { checkPermission, PermissionPolicy } from '../loop/permissions';
import { localReadTools, onceTools, repeatableTools } from './activity-proxies';
import { checkArguments } from '../common/tool-arguments';
import type { ToolKind } from './tool-dispatch';

export interface UserToolContext {
  workspace: string | undefined;
  offered: ReadonlySet<string>;
  policy: PermissionPolicy;
  guard: typeof checkPermission;
  callKey: string;
  checkpointRequest?(): CheckpointRequest | undefined;
}

type ToolActivity = { executeWithOptions(options: object, args: unknown[]): Promise<ToolOutcome> };

const schemas = new Map<string, z.ZodType>();

/** The zod schema the workflow checks a call with, rebuilt from the JSON schema the bundle holds. */
function schemaOf(tool: UserToolDescriptor): z.ZodType {
  let schema = schemas.get(tool.name);
  if (!schema) {
    schema = z.fromJSONSchema(tool.parameters as Parameters<typeof z.fromJSONSchema>[0]);
    schemas.set(tool.name, schema);
  }
  return schema;
}

/**
 * A tool of the worker's own code (`defineTool`) this run offers: the same pipeline as a built-in
 * tool's (argument check, guard, human, hooks, at most once for `once`, checkpoint), run as an
 * activity on the run's own task queue, where the worker that registered it polls; never on
 * `toolTaskQueue`, whose worker does not have it.
 */
export function userToolKind(name: string, context: UserToolContext): ToolKind | undefined {
  const tool = userTool(name);
  if (!tool || !context.offered.has(name)) return undefined;
  const { effect } = tool;
  // What the CLI, the page and an at-most-once failure show beside the name: the declared file or command, else the usual fields.
  const summary = (args: unknown, length?: number) => {
    const main = declaredArgument(tool, 'pathArgument', args) ?? declaredArgument(tool, 'commandArgument', args);
    return main !== undefined ? toolSummary(name, { file_path: main }, length) : toolSummary(name, args, length);
  };
  return {
    effect,
    validate: (input) => checkArguments(tool, schemaOf(tool), input),
    decide: (args) => context.guard(context.policy, name, args),
    execute: (args) => {
      const proxy = effect === 'read' ? localReadTools : effect === 'once' ? onceTools : repeatableTools;
      const activity = (proxy as unknown as Record<string, ToolActivity>)[name] as ToolActivity;
      const checkpoint = effect === 'read' ? undefined : context.checkpointRequest?.();
      const request = { ...(context.workspace ? { workspace: context.workspace } : {}), input: args, callId: context.callKey, ...(checkpoint ? { checkpoint } : {}) };
      return activity.executeWithOptions({ summary: summary(args) }, [request]);
    },
    describe: (args) => summary(args, 200),
  };
}
