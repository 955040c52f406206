import { z } from 'zod';
import type { UserToolDescriptor } from '../../common/tool-descriptors';
import { isToolName } from '../../common/tool-schemas';

/** What a tool written in code may do: the guard's vocabulary (src/common/tool-schemas.ts). */
export type UserToolEffect = 'read' | 'repeatable' | 'once';

/** What a tool's `execute` is told besides its arguments. */
export interface ToolContext {
  /** The run's workspace, as its input named it (absent when the run names none). */
  workspace: string | undefined;
  /** Aborted when the run is cancelled or the activity times out. */
  signal: AbortSignal;
  /** The same for every attempt of this call, in every run of the conversation: an idempotency key. */
  callId: string | undefined;
}

/** A tool from the worker's own code: its definition and the function that runs it on the worker. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  /** A zod schema: the model is sent it as a JSON schema, and every call is checked against it. */
  parameters: S;
  effect: UserToolEffect;
  /** The argument that names a file of the workspace: guard rules (`tool(path)`), settings protection, instruction folders. */
  pathArgument?: string;
  /** The argument that names a folder: guard rules, instruction folders. */
  folderArgument?: string;
  /** The argument that is a shell command: the guard parses and checks it as it checks bash's (it is not run in the sandbox: `execute` runs it). */
  commandArgument?: string;
  /** Runs on the worker that registered the tool; what it returns (a string, else JSON) is the model's result; what it throws is an error result. */
  execute(args: z.output<S>, context: ToolContext): unknown;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const EFFECTS: ReadonlySet<string> = new Set(['read', 'repeatable', 'once']);

/** A tool for `BareAgentPlugin({ tools })`; a definition the runtime cannot use fails here, naming the tool. */
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): ToolDefinition<S> {
  const { name } = definition;
  const fail = (why: string): never => {
    throw new TypeError(`defineTool ${JSON.stringify(name)}: ${why}`);
  };
  if (typeof name !== 'string' || !NAME.test(name)) fail('the name must be 1-64 letters, digits, "_" or "-"');
  if (isToolName(name)) fail('a built-in tool has this name');
  if (name.startsWith('mcp__')) fail('names starting with mcp__ are MCP tools');
  if (typeof definition.description !== 'string' || definition.description.trim() === '') fail('it needs a description');
  if (!EFFECTS.has(definition.effect)) fail('effect must be "read", "repeatable" or "once"');
  if (typeof definition.execute !== 'function') fail('it needs an execute function');
  const schema = jsonSchemaOf(definition.parameters, fail);
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  for (const field of ['pathArgument', 'folderArgument', 'commandArgument'] as const) {
    const argument = definition[field];
    if (argument === undefined) continue;
    if (properties[argument]?.type !== 'string') fail(`${field} "${argument}" is not a string field of its parameters`);
  }
  return definition;
}

/** What the workflow knows of a tool: everything but `execute`, its parameters as a JSON schema. */
export function userToolDescriptor(definition: ToolDefinition): UserToolDescriptor {
  return {
    name: definition.name,
    description: definition.description,
    effect: definition.effect,
    ...(definition.pathArgument ? { pathArgument: definition.pathArgument } : {}),
    ...(definition.folderArgument ? { folderArgument: definition.folderArgument } : {}),
    ...(definition.commandArgument ? { commandArgument: definition.commandArgument } : {}),
    // A call no rule names asks in default mode, runs in auto mode (as write_file's).
    ...(definition.effect !== 'read' ? { unnamedCall: 'ask' as const } : {}),
    parameters: jsonSchemaOf(definition.parameters, (why) => {
      throw new TypeError(`defineTool ${JSON.stringify(definition.name)}: ${why}`);
    }),
  };
}

function jsonSchemaOf(parameters: z.ZodType, fail: (why: string) => never): Record<string, unknown> {
  // Duck-typed: the user's zod may be another copy than this package's.
  if (typeof (parameters as { safeParse?: unknown } | undefined)?.safeParse !== 'function') return fail('parameters must be a zod schema');
  let schema: Record<string, unknown>;
  try {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(parameters, { io: 'input' }) as Record<string, unknown>;
    schema = rest;
  } catch (err) {
    return fail(`its parameters have no JSON schema (${(err as Error).message})`);
  }
  if (schema.type !== 'object') fail('parameters must be an object schema (z.object or z.strictObject)');
  return schema;
}
