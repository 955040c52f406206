import type { ToolEffect } from '../common/tool-schemas';
import type { PermissionDecision, PermissionPolicy } from './permissions';
import { toolNameMatches, type PermissionRule } from './permission-rules';

/** What an MCP tool rule's argument is compared with: the call's arguments as JSON, `{"path":"a.txt"}`. */
export function mcpRuleTarget(input: unknown): string {
  return JSON.stringify(input ?? {});
}

function matches(rule: PermissionRule, tool: string, target: string): boolean {
  if (!toolNameMatches(rule.tool, tool)) return false;
  const wanted = rule.argument ?? '';
  return rule.prefix ? target.startsWith(wanted) : target === wanted;
}

/**
 * The guard for an MCP tool, in the order of the built-in one: a deny rule wins in every mode;
 * a tool its server annotates read-only runs without asking (a server is trusted as much as the
 * run's configuration that named it); `plan` refuses the rest; an allow rule or `auto` lets it
 * run; `default` asks.
 */
export function checkMcpPermission(policy: PermissionPolicy, tool: { name: string; effect: ToolEffect }, input: unknown): PermissionDecision {
  const target = mcpRuleTarget(input);
  if (policy.deny.some((rule) => matches(rule, tool.name, target))) return { behavior: 'deny', reason: 'deny rule' };
  if (policy.mode === 'bypass') return { behavior: 'allow', reason: 'bypass mode' };
  if (tool.effect === 'read') return { behavior: 'allow', reason: 'read-only MCP tool' };
  if (policy.mode === 'plan') return { behavior: 'deny', reason: 'plan mode is read-only' };
  if (policy.allow.some((rule) => matches(rule, tool.name, target))) return { behavior: 'allow', reason: 'allow rule' };
  if (policy.mode === 'auto') return { behavior: 'allow', reason: 'auto mode' };
  return { behavior: 'ask', reason: `${tool.name} needs confirmation` };
}
