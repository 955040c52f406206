import type { PermissionDecision } from './permissions';
import { canonicalPath } from './workspace-path';

/**
 * Paths that tools on the user's machine run, or read as commands to run, on their own: the user
 * never asked for them by name, and runs them as themselves, outside any sandbox. Compared without
 * case. A folder counts at any depth (a nested repository's `.git` is run by a `git status` there).
 *
 * - `.git` (folder, or a file whose `gitdir:` names one): git runs `core.fsmonitor`, `core.pager`,
 *   `core.sshCommand`, aliases, `diff.*.textconv`, filter drivers and `hooks/*` from it.
 * - `.husky`, `.pre-commit-config.yaml`, `lefthook.yml`/`.lefthook.yml`: what the installed git hooks run.
 * - `.envrc` (direnv), `mise.toml`/`.mise.toml` (mise hooks and tasks): run on entering the folder,
 *   once trusted; a change is the agent's text under the user's earlier trust.
 * - `.vscode`, `.idea`, `.devcontainer`: tasks run on folder open, interpreter and tool paths, the
 *   dev container's `initializeCommand` (run on the host).
 *
 * Not listed: `.gitattributes` only picks which configured driver applies to a file (a driver's
 * command lives in `.git/config` or the user's own configuration); `.gitmodules` cannot make git run
 * a command (git refuses `update = !command` from it). Build files (Makefile, package.json scripts)
 * run only when the user runs them.
 */
const HOST_EXECUTED_DIRS: ReadonlySet<string> = new Set(['.git', '.husky', '.vscode', '.idea', '.devcontainer']);
const HOST_EXECUTED_FILES: ReadonlySet<string> = new Set(['.envrc', '.pre-commit-config.yaml', 'lefthook.yml', '.lefthook.yml', 'mise.toml', '.mise.toml']);

/** The names above, as they stand at the top of a workspace: what a command's sandbox binds read-only. */
export const HOST_EXECUTED_NAMES: readonly string[] = [...HOST_EXECUTED_DIRS, ...HOST_EXECUTED_FILES];

/** Whether a workspace-relative path names a file a host tool runs on its own (see above), in any spelling (`./.GIT/config`, `sub/.git/hooks/x`). */
export function isHostExecutedPath(path: string): boolean {
  const parts = canonicalPath(path).toLowerCase().split('/');
  const name = parts[parts.length - 1] ?? '';
  return parts.some((part) => HOST_EXECUTED_DIRS.has(part)) || HOST_EXECUTED_FILES.has(name);
}

/** A command's question, when the run lets commands write `.git` (`sandbox.writableGit`): the human is told. */
export function nameWritableGit(tool: string, decision: PermissionDecision): PermissionDecision {
  if (decision.behavior !== 'ask' || (tool !== 'bash' && tool !== 'background_run')) return decision;
  return { ...decision, reason: `${decision.reason}; this run lets commands write .git (sandbox.writableGit), whose hooks and configuration git runs on the user's machine` };
}
