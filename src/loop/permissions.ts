import type { PermissionMode, PermissionRules } from '../common/input';
import { declaredArgument, toolDescriptor, USER_TOOLS } from '../common/tool-descriptors';
import { COMMAND_RULE_TOOL, mainArgument, TOOL_NAMES, type ToolDescriptor } from '../common/tool-schemas';
import { isAutoSafeArgv } from './auto-safe-commands';
import { normalizeCommand, type NormalizedCommand } from './command-normalize';
import { matchCommandRule, type RuleMatch } from './command-rules';
import { isDangerous } from './dangerous-commands';
import { parseRule, type PermissionRule } from './permission-rules';
import { parseShell, type ShellParse } from './shell-parse';
import { canonicalPath, canonicalPrefix } from './workspace-path';

export type PermissionBehavior = 'allow' | 'deny' | 'ask';
export interface PermissionDecision {
  behavior: PermissionBehavior;
  reason: string;
}

/** Every tool name the runtime knows; anything else gets `Unknown tool: <name>` from the loop. */
export const KNOWN_TOOL_NAMES: ReadonlySet<string> = new Set([...TOOL_NAMES, ...USER_TOOLS.map((tool) => tool.name)]);

export interface PermissionPolicy {
  mode: PermissionMode;
  allow: PermissionRule[];
  deny: PermissionRule[];
}

export function createPolicy(mode: PermissionMode, rules: PermissionRules = {}): PermissionPolicy {
  return { mode, allow: (rules.allow ?? []).map(parseRule), deny: (rules.deny ?? []).map(parseRule) };
}

const decide = (behavior: PermissionBehavior, reason: string): PermissionDecision => ({ behavior, reason });

/** What a file tool's rule is compared with: the canonical workspace-relative path. */
function ruleTarget(tool: ToolDescriptor, input: unknown): string {
  if (tool.pathArgument) return canonicalPath(declaredArgument(tool, 'pathArgument', input) ?? '');
  if (tool.folderArgument) return canonicalPath(declaredArgument(tool, 'folderArgument', input) ?? '.');
  return mainArgument(tool.name, input).trim();
}

function pathRuleMatches(rule: PermissionRule, tool: ToolDescriptor, target: string): boolean {
  if (rule.tool !== tool.name) return false;
  const isPath = tool.pathArgument !== undefined || tool.folderArgument !== undefined;
  const wanted = isPath ? (rule.prefix ? canonicalPrefix(rule.argument ?? '') : canonicalPath(rule.argument ?? '')) : (rule.argument ?? '');
  return rule.prefix ? target.startsWith(wanted) : target === wanted;
}

/**
 * BareAgent's guard (docs/security-and-trust.md): the order of the checks is the policy. A deny rule
 * wins in every mode, bypass included: bypass skips questions, not the user's explicit refusals.
 */
export function checkPermission(policy: PermissionPolicy, tool: string, input: unknown): PermissionDecision {
  // Nothing runs for a name without a handler; asking a human about it would be noise.
  const descriptor = toolDescriptor(tool);
  if (!descriptor) return decide('allow', 'no such tool');
  if (descriptor.commandArgument) return checkCommand(policy, tool, declaredArgument(descriptor, 'commandArgument', input) ?? mainArgument(tool, input));
  const target = ruleTarget(descriptor, input);
  if (policy.deny.some((rule) => pathRuleMatches(rule, descriptor, target))) return decide('deny', 'deny rule');
  if (policy.mode === 'bypass') return decide('allow', 'bypass mode');
  // A subagent inherits this policy (or a stricter type's), so each of its calls is guarded in turn.
  if (descriptor.effect === 'workflow') return decide('allow', "a subagent's own tool calls are guarded");
  // Tools whose effect is `read` never ask, in any mode.
  if (descriptor.effect === 'read') return decide('allow', 'read-only tool');
  if (policy.mode === 'plan') return decide('deny', 'plan mode is read-only');
  if (policy.allow.some((rule) => pathRuleMatches(rule, descriptor, target))) return decide('allow', 'allow rule');
  if (descriptor.unnamedCall === 'allow') return decide('allow', 'file edits run without asking');
  if (descriptor.unnamedCall === 'ask') {
    return policy.mode === 'default' ? decide('ask', `${tool} asks in default mode`) : decide('allow', 'auto mode');
  }
  return decide('ask', `${tool} needs confirmation`);
}

/** A command line, parsed and with each simple command normalised (nested scripts included). */
interface AnalysedCommand {
  raw: string;
  shell: ShellParse;
  commands: NormalizedCommand[];
}

function analyse(raw: string): AnalysedCommand {
  const shell = parseShell(raw);
  return { raw, shell, commands: shell.commands.flatMap((c) => normalizeCommand(c.words)) };
}

/** A command tool's rules may name the tool itself or `bash`. */
const namesCommandTool = (rule: PermissionRule, tool: string): boolean => rule.tool === tool || rule.tool === COMMAND_RULE_TOOL;
const isBareRule = (rule: PermissionRule): boolean => rule.prefix && (rule.argument ?? '') === '';

/** `yes` if a deny rule matches any simple command; `maybe` if the command hides what it runs. */
function denyMatch(rules: readonly PermissionRule[], command: AnalysedCommand): RuleMatch {
  if (rules.some(isBareRule)) return 'yes';
  let result: RuleMatch = command.shell.parsed ? 'no' : 'maybe';
  for (const rule of rules) {
    for (const simple of command.commands) {
      const match = matchCommandRule(rule, simple);
      if (match === 'yes') return 'yes';
      if (match === 'maybe') result = 'maybe';
    }
  }
  return result;
}

/** Options a wrapper may pass that change what an allowed command does (`NODE_OPTIONS=...`, `git -c`). */
const RISKY_WRAPPERS: ReadonlySet<string> = new Set(['assign', 'env', 'git-config', 'sudo', 'doas']);

/**
 * An allow rule covers a command only when every simple command in it matches an allow rule or
 * is read-only, and the command is literal: `bash(npm test*)` does not cover `npm test; curl x`
 * nor `npm test $(curl x)`. A bare `bash` rule allows every command, as written.
 */
function commandAllowed(rules: readonly PermissionRule[], command: AnalysedCommand): boolean {
  if (rules.some(isBareRule)) return true;
  if (rules.length === 0 || !command.shell.literal || !command.shell.parsed) return false;
  let used = false;
  for (const simple of command.shell.commands) {
    const normalized = normalizeCommand(simple.words);
    const byRule =
      normalized.length > 0 &&
      normalized.every(
        (n) => n.certain && !n.wrappers.some((w) => RISKY_WRAPPERS.has(w)) && rules.some((rule) => matchCommandRule(rule, n) === 'yes'),
      );
    if (byRule) used = true;
    else if (!isAutoSafeArgv(simple.words.map((w) => w.text))) return false;
  }
  return used;
}

/** Read-only: literal, and every simple command, as written, is on an allow-list. */
function autoSafe(command: AnalysedCommand): boolean {
  if (!command.shell.literal || !command.shell.parsed || command.shell.commands.length === 0) return false;
  return command.shell.commands.every((simple) => isAutoSafeArgv(simple.words.map((w) => w.text)));
}

function checkCommand(policy: PermissionPolicy, tool: string, raw: string): PermissionDecision {
  const { mode } = policy;
  const command = analyse(raw);
  const denyRules = policy.deny.filter((rule) => namesCommandTool(rule, tool));
  const denied = denyMatch(denyRules, command);
  if (denied === 'yes') return decide('deny', 'deny rule');
  if (denied === 'maybe' && denyRules.length > 0) {
    const reason = 'the command could not be checked against the deny rules';
    return mode === 'plan' || mode === 'bypass' ? decide('deny', reason) : decide('ask', reason);
  }
  if (mode === 'bypass') return decide('allow', 'bypass mode');
  const redirects = command.shell.commands.flatMap((c) => c.redirects);
  if (isDangerous(raw, command.commands, redirects)) {
    return mode === 'plan' ? decide('deny', 'plan mode is read-only') : decide('ask', 'dangerous command');
  }
  const allowRules = policy.allow.filter((rule) => namesCommandTool(rule, tool));
  if (mode !== 'plan' && commandAllowed(allowRules, command)) return decide('allow', 'allow rule');
  if (autoSafe(command)) return decide('allow', 'read-only command');
  if (mode === 'plan') return decide('deny', 'plan mode is read-only');
  if (!command.shell.parsed) return decide('ask', 'the command could not be parsed');
  if (mode === 'auto') {
    // Whatever a computed command name turns out to be, it was never checked against the list above.
    const computed = command.commands.some((c) => c.argv[0] !== undefined && !c.argv[0].literal);
    return computed ? decide('ask', 'the command name is computed') : decide('allow', 'auto mode');
  }
  return decide('ask', 'command needs confirmation');
}
