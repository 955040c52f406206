import { declaredArgument, toolDescriptor } from '../common/tool-descriptors';
import type { PermissionDecision, PermissionPolicy } from './permissions';
import { isHostExecutedPath } from './host-executed';
import { canonicalPath } from './workspace-path';

/** What the runtime reads as settings or as instructions; compared without case, as a case-insensitive filesystem would. */
const SETTINGS_DIR = '.bareagent';
const INSTRUCTION_NAMES: ReadonlySet<string> = new Set(['agents.md', 'claude.md']);

/**
 * Whether a workspace-relative path names a file BareAgent (or another agent) reads as its
 * configuration or instructions: anything under a `.bareagent` directory, and every AGENTS.md or
 * CLAUDE.md, at any depth, in any spelling (`./.bareagent/x`, `sub/../.bareagent/x`,
 * `.BareAgent/x`).
 */
export function isSettingsPath(path: string): boolean {
  const canonical = canonicalPath(path);
  const parts = canonical.toLowerCase().split('/');
  return parts.slice(0, -1).includes(SETTINGS_DIR) || parts[parts.length - 1] === SETTINGS_DIR || INSTRUCTION_NAMES.has(parts[parts.length - 1] ?? '');
}

/**
 * The guard's decision for a write or edit of such a file, tightened: what the guard allows asks
 * a human in `default` and `auto`, allow rules included (a rule is no one looking at this write).
 * Deny and `plan` stay denied; `bypass` lets it through, since the run applies the settings of its
 * start only and a change takes effect in no run of this tree.
 */
export function guardSettingsFiles(policy: PermissionPolicy, tool: string, input: unknown, decision: PermissionDecision): PermissionDecision {
  // Tools that write a file by its path.
  const descriptor = toolDescriptor(tool);
  if (decision.behavior !== 'allow' || !descriptor?.pathArgument || descriptor.effect === 'read') return decision;
  if (policy.mode !== 'default' && policy.mode !== 'auto') return decision;
  const filePath = declaredArgument(descriptor, 'pathArgument', input);
  if (filePath === undefined) return decision;
  if (isHostExecutedPath(filePath)) return { behavior: 'ask', reason: `${filePath} is run by tools on the user's machine (git, hooks, editors, direnv): writing it needs confirmation` };
  if (!isSettingsPath(filePath)) return decision;
  return { behavior: 'ask', reason: `${filePath} holds settings or instructions: writing it needs confirmation` };
}
