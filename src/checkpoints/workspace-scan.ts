import { closeSync, constants, lstatSync, openSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { atDirectory } from './directory-handle';

/** What git would trip over or leave out, found before git runs. Paths are workspace-relative. */
export interface WorkspaceScan {
  /** `.gitignore` files that are FIFOs or devices: git would block opening or reading them. */
  specialIgnores: string[];
  /** Directories ('' for the root) whose `.gitattributes` is a FIFO or device. */
  specialAttributes: string[];
  /** Directories holding their own `.git`: git lists them as one entry and never looks inside. */
  repositories: string[];
  /** Directories named by a plain entry of the exclude list (`node_modules`). */
  excluded: string[];
}

function special(entry: Dirent): boolean {
  return entry.isFIFO() || entry.isCharacterDevice() || entry.isBlockDevice();
}

/** What git takes for a repository of its own: a `.git` file (a gitfile) or a directory with a HEAD. */
function isRepository(dotGit: string): boolean {
  try {
    return lstatSync(dotGit).isFile() || lstatSync(path.join(dotGit, 'HEAD')).isFile();
  } catch {
    return false;
  }
}

/** Entries of the exclude list that name a folder (`node_modules`): a scan names each such folder it meets. */
export function plainExcludesOf(exclude: readonly string[]): Set<string> {
  return new Set(exclude.filter((pattern) => !/[*?[\]/\\!]/.test(pattern)));
}

/**
 * Walks the workspace without following links, the way git's listing would (not into `.git`,
 * nested repositories or excluded directories): git opens every `.gitignore` it meets and the
 * `.gitattributes` of every directory it adds a file from, and a FIFO there blocks it.
 */
export function scanWorkspace(root: string, exclude: readonly string[]): WorkspaceScan {
  const plainExcludes = plainExcludesOf(exclude);
  const scan: WorkspaceScan = { specialIgnores: [], specialAttributes: [], repositories: [], excluded: [] };
  // Each folder through its handle: one flipped into a link to a host folder is read as nothing.
  const walk = (rel: string) => atDirectory(rel ? `${root}/${rel}` : root, (directory) => walkAt(rel, directory));
  const walkAt = (rel: string, directory: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    if (rel !== '' && entries.some((entry) => entry.name === '.git') && isRepository(`${directory}/.git`)) {
      scan.repositories.push(rel);
      return;
    }
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name === '.gitignore' && special(entry)) scan.specialIgnores.push(child);
      else if (entry.name === '.gitattributes' && special(entry)) scan.specialAttributes.push(rel);
      else if (entry.isDirectory() && entry.name !== '.git') {
        if (plainExcludes.has(entry.name)) scan.excluded.push(child);
        else walk(child);
      }
    }
  };
  walk('');
  return scan;
}

/**
 * Holds a FIFO `.gitignore` open for writing while git runs: git's open then returns at once,
 * its fstat says 0 bytes, and git reads it as an empty file instead of waiting for a writer.
 * Devices need nothing (they open at once and have no size). Returns the release.
 */
export function holdFifos(root: string, files: readonly string[]): () => void {
  const fds: number[] = [];
  for (const file of files) {
    try {
      if (lstatSync(path.join(root, file)).isFIFO()) fds.push(openSync(path.join(root, file), constants.O_RDWR | constants.O_NONBLOCK | constants.O_NOFOLLOW));
    } catch {
      // Gone or replaced since the scan: git's bounded time is the last resort.
    }
  }
  return () => fds.forEach((fd) => closeSync(fd));
}

/** True when a directory on the way to `file` (the root included) has a special `.gitattributes`. */
export function underSpecialAttributes(file: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => dir === '' || file.startsWith(`${dir}/`));
}
