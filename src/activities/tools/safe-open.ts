import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ToolError, WorkspaceEscapeError } from './tool-error';
import { explainFsError, fileKind, HardLinkError, notARegularFile } from './fs-errors';
import { refuseHiddenGuardedWrite } from './host-executed-write';
import { isInside, realpathOfDeepestExisting, resolveInWorkspace, resolveLexically } from './workspace';
import { WorkspaceFile } from './workspace-file';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;

/**
 * Every open refuses a symlink as its last component (symlinks are resolved here, one hop at a
 * time, and each target checked) and returns at once on a FIFO instead of waiting for a writer.
 *
 * The walk's calls (open, lstat, readlink, fstat, mkdir, and closing the folders it passes) are
 * synchronous: none of them waits on what a file holds (a FIFO opens non-blocking and is refused
 * before any read; a device is refused before it is opened), and each takes microseconds where a
 * call through libuv's thread pool is a round trip of about 0.3 ms on a 2-core virtual machine: a
 * read_file was eight of them, 1.6-1.9 ms. Large reads and writes, and closing the file, go
 * through the thread pool (WorkspaceFile).
 */
const NO_FOLLOW = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const DIRECTORY = O_RDONLY | O_DIRECTORY | NO_FOLLOW;
const MAX_SYMLINK_HOPS = 40;
/**
 * Components opened in all by one open, every walk from the root after a link counted: 40 links
 * over a folder 1,000 deep were 40,000 opens on the event loop (0.6 s a call). About 10 ms on an idle 2-core machine; a real path is rarely a tenth that deep.
 */
const MAX_COMPONENTS_WALKED = 1024;

/** `read` may open a directory (the caller says what it wants); `write` creates missing parents and the file. */
export type OpenIntent = 'read' | 'write' | 'edit';
const FLAGS: Record<OpenIntent, number> = {
  read: O_RDONLY | NO_FOLLOW,
  // No O_TRUNC: nothing is changed before the opened file has been checked.
  write: O_WRONLY | O_CREAT | NO_FOLLOW,
  edit: O_RDWR | NO_FOLLOW,
};

export interface OpenedFile {
  handle: WorkspaceFile;
  stats: Stats;
  /** Where the opened file really is, read back from the kernel after the open. */
  realPath: string;
  /** `write` and `edit`: the directory that holds the file's entry, opened on the same walk, and the entry's name. */
  parent?: { handle: WorkspaceFile; name: string };
}

/** Closes what `openInWorkspace` opened (the file and its folder at once: each close is a thread-pool round trip). */
export async function closeOpened(opened: OpenedFile): Promise<void> {
  await Promise.all([opened.handle.close(), opened.parent?.handle.close()]);
}

/**
 * Opens a model-given path inside the workspace, immune by construction to symlink swaps: each
 * directory is opened below the previous one's descriptor (`/proc/self/fd/<fd>/<name>` acts as
 * openat), never through a path the kernel would re-resolve, and what was opened is checked on
 * the descriptor before a single byte is read or written.
 */
export async function openInWorkspace(root: string, requested: string, intent: OpenIntent): Promise<OpenedFile> {
  // `~`, absolute and `..`, with their messages; a write, which creates, also checks its links before anything is created.
  const absolute = intent === 'write' ? resolveInWorkspace(root, requested) : resolveLexically(root, requested);
  requireProcFd();
  // Checked again on what was opened, for a link swapped meanwhile.
  if (intent === 'write') refuseHiddenGuardedWrite(root, requested, realpathOfDeepestExisting(absolute));
  let found: Found;
  try {
    found = openBeneath(root, path.relative(root, absolute), intent, requested);
  } catch (err) {
    throw explainFsError(err, requested);
  }
  try {
    const opened = verifyOpened(root, found.file, requested, intent);
    if (intent !== 'read') refuseHiddenGuardedWrite(root, requested, opened.realPath);
    return found.parent ? { ...opened, parent: found.parent } : opened;
  } catch (err) {
    await found.file.close();
    await found.parent?.handle.close();
    throw err;
  }
}

/**
 * Opens a file that a directory walk found (no symlink as last component), for reading only:
 * reading cannot change anything, so checking the descriptor after the open is enough.
 */
export async function openFoundFile(root: string, absolute: string): Promise<OpenedFile> {
  requireProcFd();
  const handle = new WorkspaceFile(openSync(absolute, FLAGS.read));
  try {
    const opened = verifyOpened(root, handle, path.relative(root, absolute), 'read');
    if (!opened.stats.isFile()) throw notARegularFile(path.relative(root, absolute), fileKind(opened.stats));
    return opened;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

function verifyOpened(root: string, handle: WorkspaceFile, requested: string, intent: OpenIntent): OpenedFile {
  const stats = fstatSync(handle.fd);
  if (!stats.isFile() && !(intent === 'read' && stats.isDirectory())) throw notARegularFile(requested, fileKind(stats));
  const realPath = readlinkSync(`/proc/self/fd/${handle.fd}`);
  if (!isInside(root, realPath)) {
    throw new WorkspaceEscapeError(`Path "${requested}" is outside the workspace: what was opened lies outside of it`);
  }
  if (intent !== 'read' && stats.nlink > 1) {
    throw new HardLinkError(`${requested} has more than one hard link; refusing to write through it`);
  }
  return { handle, stats, realPath };
}

interface Found {
  file: WorkspaceFile;
  parent?: { handle: WorkspaceFile; name: string };
}

function openBeneath(root: string, relative: string, intent: OpenIntent, requested: string): Found {
  let parts = relative.split(path.sep).filter((part) => part !== '' && part !== '.');
  const budget = { left: MAX_COMPONENTS_WALKED };
  for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
    const opened = walk(root, parts, intent, requested, budget);
    if (!Array.isArray(opened)) return opened;
    parts = opened;
  }
  throw new ToolError(`Path "${requested}" has too many levels of symbolic links`);
}

/**
 * Opens `parts` one by one below the root; on a symlink, returns the parts to walk instead. A
 * write or edit keeps the last directory open: the new content is renamed into it.
 */
function walk(root: string, parts: string[], intent: OpenIntent, requested: string, budget: { left: number }): Found | string[] {
  if (parts.length === 0) return { file: new WorkspaceFile(openSync(root, FLAGS[intent], 0o666)) };
  let dir = openSync(root, DIRECTORY);
  let kept: number | undefined;
  let created = 0;
  try {
    for (let i = 0; i < parts.length; i++) {
      if (--budget.left < 0) throw new ToolError(`Path "${requested}" takes more than ${MAX_COMPONENTS_WALKED} folders to reach through its links: refused`);
      const at = `/proc/self/fd/${dir}/${parts[i]}`;
      const last = i === parts.length - 1;
      if (last) {
        const found = lstatSync(at, { throwIfNoEntry: false });
        if (found?.isSymbolicLink()) return symlinkTarget(root, dir, at, requested, parts);
        // Not even opened: opening a device can have effects of its own.
        if (found && !found.isFile() && !found.isDirectory()) throw notARegularFile(requested, fileKind(found));
      }
      let next: number;
      try {
        next = openSync(at, last ? FLAGS[intent] : DIRECTORY, 0o666);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if ((code === 'ELOOP' || code === 'ENOTDIR') && lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) {
          const target = symlinkTarget(root, dir, at, requested, parts);
          return target === parts ? parts : [...target, ...parts.slice(i + 1)];
        }
        if (code === 'ENOENT' && !last && intent === 'write' && created++ < parts.length) {
          try {
            mkdirSync(at);
          } catch (mkdirErr) {
            if ((mkdirErr as NodeJS.ErrnoException).code !== 'EEXIST') throw mkdirErr;
          }
          i -= 1; // open what now stands there, checked like the rest
          continue;
        }
        throw err;
      }
      if (last) {
        if (intent === 'read') return { file: new WorkspaceFile(next) };
        kept = dir;
        return { file: new WorkspaceFile(next), parent: { handle: new WorkspaceFile(dir), name: parts[i]! } };
      }
      const parent = dir;
      dir = next;
      closeSync(parent);
    }
    throw new Error('unreachable: the last part returns');
  } finally {
    if (dir !== kept) closeSync(dir);
  }
}

/**
 * The symlink's target, resolved against the real directory holding it, as parts below the root
 * (`retry` itself when the link vanished meanwhile: the walk starts over).
 */
function symlinkTarget(root: string, dir: number, at: string, requested: string, retry: string[]): string[] {
  let target: string;
  try {
    target = readlinkSync(at);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EINVAL' || (err as NodeJS.ErrnoException).code === 'ENOENT') return retry;
    throw err;
  }
  const absolute = path.resolve(readlinkSync(`/proc/self/fd/${dir}`), target);
  if (!isInside(root, absolute)) {
    throw new WorkspaceEscapeError(`Path "${requested}" is outside the workspace: a symlink leads out of it`);
  }
  return path.relative(root, absolute).split(path.sep).filter((part) => part !== '');
}

let procChecked = false;
function requireProcFd(): void {
  if (procChecked) return;
  if (!existsSync('/proc/self/fd')) throw new ToolError('The file tools need Linux /proc/self/fd to open files safely');
  procChecked = true;
}
