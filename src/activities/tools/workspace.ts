import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { workspaceOverlap } from '../../connection/workspace-overlap';
import { FailureType } from '../../common/failures';
import { WorkspaceEscapeError } from './tool-error';

/**
 * The directory a run's tools may touch; the worker's current directory when unset. Every
 * activity that works in a workspace asks here, so a workspace that overlaps the operator's state
 * (the home, the checkpoint stores) is refused by all of them: at run start this fails the run
 * (src/workflows/run-start.ts), and no tool, command or snapshot ever runs there.
 */
export function workspaceRoot(workspace: string | undefined): string {
  const root = realpathSync(path.resolve(workspace ?? process.cwd()));
  const overlap = workspaceOverlap(root);
  if (overlap) throw ApplicationFailure.create({ type: FailureType.InvalidInput, message: overlap, nonRetryable: true });
  return root;
}

/**
 * Resolves a model-given path inside the workspace, refusing `~`, absolute paths,
 * `..` escapes and symlinks that lead out (checked on the deepest existing ancestor,
 * so a path that does not exist yet is checked too).
 */
export function resolveInWorkspace(root: string, requested: string): string {
  const resolved = resolveLexically(root, requested);
  const real = realpathOfDeepestExisting(resolved);
  if (!isInside(root, real)) {
    throw new WorkspaceEscapeError(`Path "${requested}" is outside the workspace: a symlink leads out of it`);
  }
  return resolved;
}

/** `~`, absolute paths and `..` escapes refused, links not looked at (the safe open follows them itself, bounded). */
export function resolveLexically(root: string, requested: string): string {
  if (requested.startsWith('~')) throw new WorkspaceEscapeError(`Path "${requested}" is outside the workspace: ~ is not allowed`);
  if (path.isAbsolute(requested)) {
    throw new WorkspaceEscapeError(`Path "${requested}" is outside the workspace: use a path relative to the workspace`);
  }
  const resolved = path.resolve(root, requested);
  if (!isInside(root, resolved)) throw new WorkspaceEscapeError(`Path "${requested}" is outside the workspace`);
  return resolved;
}

export function displayPath(root: string, absolute: string): string {
  return path.relative(root, absolute) || '.';
}

export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Where `target` really lands: the real path of its deepest existing ancestor plus the rest.
 * A dangling symlink counts as existing: a write through it creates its target, so its target
 * is followed (`ln -s /etc/cron.d/x ws/notes.txt` must not let write_file create /etc/cron.d/x).
 */
export function realpathOfDeepestExisting(target: string, linksFollowed = 0): string {
  let current = target;
  const rest: string[] = [];
  for (;;) {
    try {
      // The C realpath: Node's own walks in JavaScript, 4 s for a chain of 30 links over a folder 1,000 deep.
      return path.join(realpathSync.native(current), ...rest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const link = danglingSymlinkTarget(current);
      if (link !== undefined) {
        if (linksFollowed >= 40) throw new WorkspaceEscapeError(`Path "${target}" has too many levels of symbolic links`);
        return realpathOfDeepestExisting(path.join(path.resolve(path.dirname(current), link), ...rest), linksFollowed + 1);
      }
      const parent = path.dirname(current);
      if (parent === current) return target;
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}

function danglingSymlinkTarget(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : undefined;
  } catch {
    return undefined;
  }
}
