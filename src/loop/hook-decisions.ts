import type { HookRun, HookSpec } from '../common/hooks';
import { declaredArgument, toolDescriptor } from '../common/tool-descriptors';
import { COMMAND_RULE_TOOL, mainArgument } from '../common/tool-schemas';
import { matchCommandRule } from './command-rules';
import { normalizeCommand } from './command-normalize';
import { mcpRuleTarget } from './mcp-permission';
import { parseRule, toolNameMatches } from './permission-rules';
import { parseShell } from './shell-parse';

/**
 * Whether a hook's matcher (a permission rule) covers a call. Commands are matched as the guard
 * matches them, on each parsed simple command; a command that hides what it runs counts as a
 * match, so a blocking hook errs towards being asked.
 */
export function hookMatches(matcher: string | undefined, tool: string, input: unknown): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  const rule = parseRule(matcher);
  const descriptor = toolDescriptor(tool);
  const commandTool = descriptor?.commandArgument !== undefined && (rule.tool === tool || rule.tool === COMMAND_RULE_TOOL);
  if (!commandTool && !toolNameMatches(rule.tool, tool)) return false;
  const wanted = rule.argument ?? '';
  if (rule.prefix && wanted === '') return true;
  if (commandTool) {
    const shell = parseShell(declaredArgument(descriptor, 'commandArgument', input) ?? mainArgument(tool, input));
    if (!shell.parsed) return true;
    return shell.commands.flatMap((c) => normalizeCommand(c.words)).some((c) => matchCommandRule(rule, c) !== 'no');
  }
  const target = tool.startsWith('mcp__') ? mcpRuleTarget(input) : (declaredArgument(descriptor, 'pathArgument', input) ?? mainArgument(tool, input)).trim();
  return rule.prefix ? target.startsWith(wanted) : target === wanted;
}

export function hooksFor(hooks: readonly HookSpec[] | undefined, event: HookSpec['event'], tool?: string, input?: unknown): HookSpec[] {
  return (hooks ?? []).filter((hook) => hook.event === event && (tool === undefined || hookMatches(hook.matcher, tool, input)));
}

export type HookVerdict = { kind: 'continue' } | { kind: 'block'; reason: string } | { kind: 'failed'; error: string } | { kind: 'refused'; reason: string };

/**
 * What a hook's run says: not run at all (`refused`: a file it runs changed; the callers fail
 * closed on it), exit 2, or `{"decision":"block","reason":...}` on stdout, blocks (the
 * reason from the JSON, else stderr); a timeout or another non-zero exit is a failed hook, and the
 * default applies; anything else lets the call (or the answer) go on.
 */
export function hookVerdict(hook: Pick<HookSpec, 'timeout'>, run: HookRun): HookVerdict {
  if (run.refused) return { kind: 'refused', reason: run.refused };
  if (run.timedOut) return { kind: 'failed', error: `timed out after ${hook.timeout} s` };
  const json = parseJson(run.stdout);
  if (json?.decision === 'block') return { kind: 'block', reason: reasonOf(json.reason, run.stderr) };
  if (run.exitCode === 2) return { kind: 'block', reason: reasonOf(json?.reason, run.stderr || run.stdout) };
  if (run.exitCode !== 0) return { kind: 'failed', error: `exit code ${run.exitCode ?? 'signal'}${run.stderr.trim() ? `: ${run.stderr.trim().slice(0, 300)}` : ''}` };
  return { kind: 'continue' };
}

function parseJson(text: string): { decision?: unknown; reason?: unknown } | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value && typeof value === 'object' ? (value as { decision?: unknown; reason?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

function reasonOf(reason: unknown, fallback: string): string {
  const text = typeof reason === 'string' && reason.trim() ? reason.trim() : fallback.trim();
  return (text || 'blocked by a hook').slice(0, 2000);
}
