import { statSync } from 'node:fs';
import path from 'node:path';
import { isHostExecutedPath } from '../../loop/host-executed';
import { isSettingsPath } from '../../loop/settings-files';
import { ToolError } from './tool-error';

/**
 * The guard judged the path the model wrote; this judges where the write lands. A write that
 * reaches a guarded file (settings, instructions, what host tools run) through a link, or lands
 * inside a git directory that is not named `.git` (the target of a `.git` file's `gitdir:`, a bare
 * repository), is refused in every mode: written by its own path, the run asks.
 */
export function refuseHiddenGuardedWrite(root: string, requested: string, landing: string): void {
  const named = isHostExecutedPath(requested) || isSettingsPath(requested);
  if (named) return;
  const relative = path.relative(root, landing);
  if (isHostExecutedPath(relative) || isSettingsPath(relative)) {
    throw new ToolError(`${requested} leads through a link to ${relative}, which holds settings or what tools on the user's machine run: write it by its own path, so that the run asks`);
  }
  const gitDir = enclosingGitDir(root, path.dirname(landing));
  if (gitDir !== undefined) {
    throw new ToolError(`${requested} lies inside a git directory (${path.relative(root, gitDir) || '.'}), whose configuration and hooks git runs on the user's machine: refused`);
  }
}

/** The nearest folder from `dir` up to the root that git would take for a repository (HEAD, objects/, refs/), if any. */
function enclosingGitDir(root: string, dir: string): string | undefined {
  for (let current = dir; current.startsWith(root); current = path.dirname(current)) {
    if (isGitDir(current)) return current;
    if (current === root || path.dirname(current) === current) return undefined;
  }
  return undefined;
}

function isGitDir(dir: string): boolean {
  const kind = (name: string) => statSync(path.join(dir, name), { throwIfNoEntry: false });
  return kind('HEAD')?.isFile() === true && kind('objects')?.isDirectory() === true && kind('refs')?.isDirectory() === true;
}
