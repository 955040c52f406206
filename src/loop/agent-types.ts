import type { PermissionMode } from '../common/input';
import { USER_TOOLS } from '../common/tool-descriptors';
import { builtInDescriptor, isActivityEffect, TOOL_NAMES, type ToolDescriptor } from '../common/tool-schemas';

/** What a subagent of a given type may do: its tools, and how deep it may nest. */
export interface AgentType {
  name: string;
  tools: readonly string[];
  maxTurns: number;
  /** Forced on the child; undefined inherits the parent's mode. */
  permissionMode?: PermissionMode;
  canNest: boolean;
}

const TOOLS: readonly ToolDescriptor[] = [...TOOL_NAMES.map(builtInDescriptor), ...USER_TOOLS];
/** The tools that only read, and the command tool run as an activity (bash), which these types' plan mode holds to read-only commands. */
const LOOKING_TOOLS = TOOLS.filter((tool) => tool.effect === 'read' || (tool.commandArgument !== undefined && isActivityEffect(tool.effect))).map((tool) => tool.name);
/** Every tool but final_answer, which the run's own setting offers. */
const ALL_TOOLS = TOOLS.filter((tool) => tool.effect !== 'answer').map((tool) => tool.name);

export const AGENT_TYPES: Readonly<Record<string, AgentType>> = {
  'general-purpose': { name: 'general-purpose', tools: ALL_TOOLS, maxTurns: 100, canNest: true },
  explore: { name: 'explore', tools: LOOKING_TOOLS, maxTurns: 50, permissionMode: 'plan', canNest: false },
  plan: { name: 'plan', tools: LOOKING_TOOLS, maxTurns: 50, permissionMode: 'plan', canNest: false },
  'code-review': { name: 'code-review', tools: LOOKING_TOOLS, maxTurns: 50, permissionMode: 'plan', canNest: false },
};

export const MAX_SUBAGENT_DEPTH = 3;

export function agentType(name: string): AgentType | undefined {
  return Object.prototype.hasOwnProperty.call(AGENT_TYPES, name) ? AGENT_TYPES[name] : undefined;
}

/**
 * The tools a run offers: its type's subset, without `subagent` where the type may not nest.
 * At the depth limit `subagent` stays offered, and says why it refuses.
 */
export function toolsFor(type: AgentType, _depth: number): string[] {
  return type.tools.filter((tool) => tool !== 'subagent' || type.canNest);
}
