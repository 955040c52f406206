import type { PermissionMode, PermissionRules } from '../common/input';
import { mainArgument } from '../common/tool-schemas';
import { isAutoSafeCommand, isDangerousCommand } from './bash-patterns';
import { anyRuleMatches, parseRule, type PermissionRule } from './permission-rules';

export type PermissionBehavior = 'allow' | 'deny' | 'ask';
export interface PermissionDecision {
  behavior: PermissionBehavior;
  reason: string;
}

/** Tools that only read: they never ask, in any mode. */
export const SAFE_TOOLS: ReadonlySet<string> = new Set(['read_file', 'glob', 'grep', 'todo_read']);
const COMMAND_TOOLS: ReadonlySet<string> = new Set(['bash', 'background_run']);

export interface PermissionPolicy {
  mode: PermissionMode;
  allow: PermissionRule[];
  deny: PermissionRule[];
}

export function createPolicy(mode: PermissionMode, rules: PermissionRules = {}): PermissionPolicy {
  return { mode, allow: (rules.allow ?? []).map(parseRule), deny: (rules.deny ?? []).map(parseRule) };
}

const decide = (behavior: PermissionBehavior, reason: string): PermissionDecision => ({ behavior, reason });

/** BareAgent's guard (DESIGN.md section 4): the order of the checks is the policy. */
export function checkPermission(policy: PermissionPolicy, tool: string, input: unknown): PermissionDecision {
  const argument = mainArgument(tool, input);
  if (policy.mode === 'bypass') return decide('allow', 'bypass mode');
  if (SAFE_TOOLS.has(tool)) return decide('allow', 'read-only tool');
  if (COMMAND_TOOLS.has(tool)) return checkCommand(policy, tool, argument);
  if (anyRuleMatches(policy.deny, tool, argument)) return decide('deny', 'deny rule');
  if (policy.mode === 'plan') return decide('deny', 'plan mode is read-only');
  if (anyRuleMatches(policy.allow, tool, argument)) return decide('allow', 'allow rule');
  if (tool === 'edit_file') return decide('allow', 'file edits run without asking');
  if (tool === 'write_file') {
    return policy.mode === 'default' ? decide('ask', 'write_file asks in default mode') : decide('allow', 'auto mode');
  }
  return decide('ask', `${tool} needs confirmation`);
}

/** A command tool's rules may name the tool itself or `bash`. */
const commandRuleMatches = (rules: PermissionRule[], tool: string, command: string): boolean =>
  anyRuleMatches(rules, tool, command) || anyRuleMatches(rules, 'bash', command);

function checkCommand(policy: PermissionPolicy, tool: string, command: string): PermissionDecision {
  if (commandRuleMatches(policy.deny, tool, command)) return decide('deny', 'deny rule');
  if (isDangerousCommand(command)) {
    return policy.mode === 'plan' ? decide('deny', 'plan mode is read-only') : decide('ask', 'dangerous command');
  }
  if (policy.mode !== 'plan' && commandRuleMatches(policy.allow, tool, command)) return decide('allow', 'allow rule');
  if (isAutoSafeCommand(command)) return decide('allow', 'read-only command');
  if (policy.mode === 'plan') return decide('deny', 'plan mode is read-only');
  return policy.mode === 'auto' ? decide('allow', 'auto mode') : decide('ask', 'command needs confirmation');
}
