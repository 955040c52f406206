/**
 * The guard as it was before the shell parser (regexes over the raw command). Kept verbatim so
 * that runs recorded with it replay the same decisions; the workflow picks it with `patched()`.
 * Do not change its behaviour.
 */
import { mainArgument } from '../common/tool-schemas';
import { commandSegments, isAutoSafeCommand, isComposedCommand, isDangerousCommand } from './bash-patterns-v1';
import { anyRuleMatches, ruleMatches, type PermissionRule } from './permission-rules';
import { KNOWN_TOOL_NAMES, SAFE_TOOLS, type PermissionBehavior, type PermissionDecision, type PermissionPolicy } from './permissions';

const COMMAND_TOOLS: ReadonlySet<string> = new Set(['bash', 'background_run']);

const decide = (behavior: PermissionBehavior, reason: string): PermissionDecision => ({ behavior, reason });

/**
 * BareAgent's guard (README, "Security model"): the order of the checks is the policy. A deny rule
 * wins in every mode, bypass included: bypass skips questions, not the user's explicit refusals.
 */
export function checkPermissionV1(policy: PermissionPolicy, tool: string, input: unknown): PermissionDecision {
  // Nothing runs for a name without a handler; asking a human about it would be noise.
  if (!KNOWN_TOOL_NAMES.has(tool)) return decide('allow', 'no such tool');
  const argument = mainArgument(tool, input);
  if (COMMAND_TOOLS.has(tool)) return checkCommand(policy, tool, argument);
  if (anyRuleMatches(policy.deny, tool, argument)) return decide('deny', 'deny rule');
  if (policy.mode === 'bypass') return decide('allow', 'bypass mode');
  // The child inherits this policy (or a stricter type's), so each of its calls is guarded in turn.
  if (tool === 'subagent') return decide('allow', "a subagent's own tool calls are guarded");
  if (SAFE_TOOLS.has(tool)) return decide('allow', 'read-only tool');
  if (policy.mode === 'plan') return decide('deny', 'plan mode is read-only');
  if (anyRuleMatches(policy.allow, tool, argument)) return decide('allow', 'allow rule');
  if (tool === 'edit_file') return decide('allow', 'file edits run without asking');
  if (tool === 'write_file') {
    return policy.mode === 'default' ? decide('ask', 'write_file asks in default mode') : decide('allow', 'auto mode');
  }
  return decide('ask', `${tool} needs confirmation`);
}

/** A command tool's rules may name the tool itself or `bash`. */
const namesCommandTool = (rule: PermissionRule, tool: string): boolean => rule.tool === tool || rule.tool === 'bash';

/** A deny rule catches its command anywhere in a chain: `ls && git push` hits `bash(git push*)`. */
function commandDenied(rules: readonly PermissionRule[], tool: string, command: string): boolean {
  const parts = [command, ...commandSegments(command)];
  return rules.some((rule) => namesCommandTool(rule, tool) && parts.some((part) => ruleMatches(rule, rule.tool, part)));
}

/**
 * An allow rule's prefix does not stretch over a chain: `bash(npm test*)` allows `npm test -- x`
 * but not `npm test; curl ... | sh`. A bare `bash` rule allows every command, as written.
 */
function commandAllowed(rules: readonly PermissionRule[], tool: string, command: string): boolean {
  return rules.some((rule) => {
    if (!namesCommandTool(rule, tool) || !ruleMatches(rule, rule.tool, command)) return false;
    const prefix = rule.argument ?? '';
    return !rule.prefix || prefix === '' || !isComposedCommand(command.trim().slice(prefix.length));
  });
}

function checkCommand(policy: PermissionPolicy, tool: string, command: string): PermissionDecision {
  if (commandDenied(policy.deny, tool, command)) return decide('deny', 'deny rule');
  if (policy.mode === 'bypass') return decide('allow', 'bypass mode');
  if (isDangerousCommand(command)) {
    return policy.mode === 'plan' ? decide('deny', 'plan mode is read-only') : decide('ask', 'dangerous command');
  }
  if (policy.mode !== 'plan' && commandAllowed(policy.allow, tool, command)) return decide('allow', 'allow rule');
  if (isAutoSafeCommand(command)) return decide('allow', 'read-only command');
  if (policy.mode === 'plan') return decide('deny', 'plan mode is read-only');
  return policy.mode === 'auto' ? decide('allow', 'auto mode') : decide('ask', 'command needs confirmation');
}
