import { closeSync, lstatSync, openSync, readdirSync, readSync, realpathSync, constants } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { HOST_EXECUTED_NAMES } from '../loop/host-executed';

/** A `.git` file is one line (`gitdir: <path>`): anything longer is not one git reads. */
const GIT_FILE_BYTES = 4096;
const WANTED: ReadonlySet<string> = new Set(HOST_EXECUTED_NAMES);

/**
 * What a command must not change in its workspace because tools on the user's machine run it (see
 * src/loop/host-executed.ts): the entries at the workspace's top with those names (any case), and the
 * folder a `.git` file's `gitdir:` names when it lies in the workspace. Real paths inside the
 * workspace, bound read-only over the writable workspace. `writableGit` (the run's opt-in, for an
 * agent that commits) leaves `.git` and its target writable; the others stay read-only.
 *
 * Only what exists when the command starts can be bound: a command can still create such a name
 * where none was (`git init` in a workspace without a repository), which the docs say.
 */
export function hostExecutedBinds(workspace: string, writableGit: boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(workspace);
  } catch {
    return [];
  }
  const binds = new Set<string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    if (!WANTED.has(lower)) continue;
    if (lower === '.git' && writableGit) continue;
    const real = realInside(workspace, path.join(workspace, name));
    if (real === undefined) continue;
    binds.add(real);
    if (lower === '.git') {
      const target = gitFileTarget(workspace, real);
      if (target !== undefined) binds.add(target);
    }
  }
  return [...binds];
}

/**
 * The real paths of the workspace files named (relative, as the acceptance command names them)
 * that exist now and lie inside the workspace: bound read-only like the entries above. A name that
 * leads out of the workspace through a link binds nothing (the command sees outside nothing anyway).
 */
export function existingFilesInside(workspace: string, relatives: readonly string[]): string[] {
  const binds = new Set<string>();
  for (const relative of relatives) {
    const real = realInside(workspace, path.join(workspace, relative));
    if (real !== undefined) binds.add(real);
  }
  return [...binds];
}

function realInside(workspace: string, file: string): string | undefined {
  try {
    const real = realpathSync(file);
    return real !== workspace && real.startsWith(`${workspace}/`) ? real : undefined;
  } catch {
    return undefined;
  }
}

/** The folder a `.git` file points to (`gitdir: ../x`, relative to the file), when it is inside the workspace. */
function gitFileTarget(workspace: string, file: string): string | undefined {
  if (lstatSync(file, { throwIfNoEntry: false })?.isFile() !== true) return undefined;
  const buffer = Buffer.alloc(GIT_FILE_BYTES);
  let length = 0;
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      length = readSync(fd, buffer, 0, GIT_FILE_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(buffer.subarray(0, length).toString('utf8'));
  if (!match) return undefined;
  return realInside(workspace, path.resolve(path.dirname(file), match[1]!));
}

/**
 * Folders below the top that `nestedGitBinds` reads at most per command, shallowest first: the
 * walk is bounded in work whatever the workspace holds (a `node_modules` of 100,000 folders), and
 * a `.git` deeper than it reaches is not bound (the docs say so).
 */
export const NESTED_WALK_FOLDERS = 2000;

/**
 * The `.git` entries below the workspace's top (any case, at any depth the walk reaches, a `.git`
 * file's target in the workspace too), as real paths to bind read-only like the top-level ones:
 * git run by the user in `sub/` reads `sub/.git/config` and its hooks. Read with the promise API,
 * one folder at a time, so the worker's event loop goes on between folders. Links are not followed.
 */
export async function nestedGitBinds(workspace: string, folders = NESTED_WALK_FOLDERS): Promise<string[]> {
  const found = new Set<string>();
  const queue: string[] = [workspace];
  let read = 0;
  while (queue.length > 0 && read < folders) {
    const dir = queue.shift()!;
    read += 1;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.name.toLowerCase() === '.git') {
        if (dir === workspace) continue; // hostExecutedBinds has the top ones
        const real = realInside(workspace, full);
        if (real === undefined) continue;
        found.add(real);
        const target = gitFileTarget(workspace, real);
        if (target !== undefined) found.add(target);
      } else if (entry.isDirectory()) {
        queue.push(full);
      }
    }
  }
  return [...found];
}
