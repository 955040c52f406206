import type { PermissionRule } from '../common/permission-rule-syntax';

/** Rules as the input writes them are parsed in src/common; what a rule matches is decided here. */
export { isValidRule, parseRule, type PermissionRule } from '../common/permission-rule-syntax';

/** A rule's tool name against a call's: equal, or `mcp__server__*` for every tool whose name starts so. */
export function toolNameMatches(ruleTool: string, tool: string): boolean {
  return ruleTool.endsWith('*') ? tool.startsWith(ruleTool.slice(0, -1)) : ruleTool === tool;
}

export function ruleMatches(rule: PermissionRule, tool: string, argument: string): boolean {
  if (rule.tool !== tool) return false;
  const wanted = rule.argument ?? '';
  const actual = argument.trim();
  return rule.prefix ? actual.startsWith(wanted) : actual === wanted;
}

export function anyRuleMatches(rules: readonly PermissionRule[], tool: string, argument: string): boolean {
  return rules.some((rule) => ruleMatches(rule, tool, argument));
}
