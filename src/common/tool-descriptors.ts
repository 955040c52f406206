import { builtInDescriptor, isToolName, type ToolDescriptor } from './tool-schemas';

/** A tool from the worker's code (`defineTool`): its descriptor, with its parameters as a JSON schema. */
export interface UserToolDescriptor extends ToolDescriptor {
  parameters: Record<string, unknown>;
}

/**
 * Set by `BareAgentPlugin` when it bundles the workflows (a webpack DefinePlugin): the descriptors
 * of the tools the worker registered. Part of the workflow code, like any constant: a replay with
 * the same worker code reads the same tools, and a run on bareagent's own worker sees none.
 */
declare const __BAREAGENT_USER_TOOLS__: UserToolDescriptor[] | undefined;

/** The worker's own tools, as its workflow bundle holds them; none outside a plugin's bundle. */
export const USER_TOOLS: readonly UserToolDescriptor[] = typeof __BAREAGENT_USER_TOOLS__ === 'undefined' ? [] : __BAREAGENT_USER_TOOLS__;

const userTools = new Map(USER_TOOLS.map((tool) => [tool.name, tool]));

export function userTool(name: string): UserToolDescriptor | undefined {
  return userTools.get(name);
}

/** A built-in tool's or a user tool's descriptor; undefined for any other name (MCP tools have their own). */
export function toolDescriptor(name: string): ToolDescriptor | undefined {
  return isToolName(name) ? builtInDescriptor(name) : userTools.get(name);
}

/** The argument of a call that its tool declares as `field` (a path, a folder, a command), when it is a string. */
export function declaredArgument(descriptor: ToolDescriptor | undefined, field: 'pathArgument' | 'folderArgument' | 'commandArgument', input: unknown): string | undefined {
  const name = descriptor?.[field];
  if (name === undefined || !input || typeof input !== 'object') return undefined;
  const value = (input as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}
