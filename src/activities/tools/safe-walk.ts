import { constants, type Dirent, type Stats } from 'node:fs';
import { lstat, open, opendir, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;

/** Directories a walk never enters. */
export const NOT_WALKED: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export type EntryKind = 'dir' | 'file' | 'link' | 'special';

export interface DirEntry {
  name: string;
  kind: EntryKind;
  /** With `stats`: the entry's lstat, taken through the opened directory. */
  stats?: Stats;
}

/**
 * One directory's entries, read only if the directory still is where the walk expects it: it is
 * opened without following a link as its last component, and the opened descriptor's real path
 * must be `expected` exactly, so a folder flipped into a link to a host folder (anywhere on the
 * way) is read as nothing instead of as the host folder. `undefined` when it is not there any more.
 * Entry kinds come from the directory itself (lstat where the file system does not say), never
 * from following a link.
 */
export async function readDirectoryAt(expected: string, options: { max?: number; stats?: boolean } = {}): Promise<{ entries: DirEntry[]; more: boolean } | undefined> {
  const max = options.max ?? Infinity;
  const handle = await openDirectory(expected);
  if (!handle) return undefined;
  try {
    const fdPath = `/proc/self/fd/${handle.fd}`;
    const entries: DirEntry[] = [];
    let more = false;
    const dir = await opendir(fdPath);
    try {
      for await (const dirent of dir) {
        if (entries.length >= max) {
          more = true;
          break;
        }
        const kind = await kindOf(dirent, fdPath);
        const stats = options.stats && kind === 'file' ? await lstat(`${fdPath}/${dirent.name}`).catch(() => undefined) : undefined;
        // A name that became a link or a directory since it was listed is not a file any more.
        if (options.stats && kind === 'file' && !stats?.isFile()) continue;
        entries.push({ name: dirent.name, kind, ...(stats ? { stats } : {}) });
      }
    } finally {
      await dir.close().catch(() => undefined);
    }
    return { entries, more };
  } finally {
    await handle.close();
  }
}

async function openDirectory(expected: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(expected, DIRECTORY);
  } catch {
    return undefined; // gone, a link now (ELOOP), or no longer a directory (ENOTDIR)
  }
  const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => '');
  if (real !== expected) {
    await handle.close();
    return undefined;
  }
  return handle;
}

async function kindOf(dirent: Dirent, fdPath: string): Promise<EntryKind> {
  if (dirent.isSymbolicLink()) return 'link';
  if (dirent.isDirectory()) return 'dir';
  if (dirent.isFile()) return 'file';
  if (dirent.isFIFO() || dirent.isSocket() || dirent.isCharacterDevice() || dirent.isBlockDevice()) return 'special';
  // DT_UNKNOWN: ask the directory, without following the name.
  const stats = await lstat(`${fdPath}/${dirent.name}`).catch(() => undefined);
  if (!stats || stats.isSymbolicLink()) return 'link';
  return stats.isDirectory() ? 'dir' : stats.isFile() ? 'file' : 'special';
}

export interface WalkOptions {
  /** How many path segments below the start a listed file may have (1: the start's own files). */
  maxDepth?: number;
  /** Stop once this many files were found. */
  maxFiles?: number;
  /** lstat each file found (no link followed): for walks that need times. */
  stats?: boolean;
}

export interface WalkedFile {
  /** Relative to the walk's start, `/`-separated. */
  relative: string;
  stats?: Stats;
}

export interface Walk {
  /** Regular files, sorted by their relative path. */
  files: WalkedFile[];
  /** FIFOs, sockets and devices met and skipped (never opened). */
  special: string[];
  /** Whether `maxFiles` stopped the walk. */
  stopped: boolean;
}

/**
 * Every regular file under `start` (a real directory path inside the workspace), never leaving it:
 * symlinks are skipped (to files and to directories alike), `.git` and `node_modules` are not
 * entered, and each directory is read through `readDirectoryAt`, so one that a process flips
 * between a directory and a link to a host directory is never listed as the host directory.
 */
export async function walkFiles(start: string, options: WalkOptions = {}): Promise<Walk> {
  const files: WalkedFile[] = [];
  const special: string[] = [];
  const maxDepth = options.maxDepth ?? Infinity;
  const maxFiles = options.maxFiles ?? Infinity;
  const pending: Array<{ rel: string; depth: number }> = [{ rel: '', depth: 1 }];
  let stopped = false;
  while (pending.length > 0 && !stopped) {
    const { rel, depth } = pending.shift() as { rel: string; depth: number };
    const absolute = rel ? path.join(start, rel) : start;
    const read = await readDirectoryAt(absolute, { stats: options.stats === true });
    if (!read) continue;
    for (const entry of read.entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.kind === 'dir' && !NOT_WALKED.has(entry.name) && depth < maxDepth) pending.push({ rel: child, depth: depth + 1 });
      else if (entry.kind === 'special') special.push(child);
      else if (entry.kind === 'file') {
        files.push({ relative: child, ...(entry.stats ? { stats: entry.stats } : {}) });
        if (files.length >= maxFiles) {
          stopped = true;
          break;
        }
      }
    }
  }
  files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  special.sort();
  return { files, special, stopped };
}

/** The note a tool adds for what its walk skipped: said, not silently dropped. */
export function specialNote(special: readonly string[]): string | undefined {
  if (special.length === 0) return undefined;
  const named = special.slice(0, 3).map((name) => JSON.stringify(name)).join(', ');
  return `[skipped ${special.length} FIFO, socket or device file${special.length === 1 ? '' : 's'} (never opened): ${named}${special.length > 3 ? ', ...' : ''}]`;
}
