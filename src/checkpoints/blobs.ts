import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { atParentOf, type HeldDirectory } from './directory-handle';
import { objectId, writeObjectSync } from './objects';

/** A workspace entry as git would store it: its mode and its bytes (a link's bytes are its target). */
export interface Entry {
  mode: '100644' | '100755' | '120000';
  bytes: Buffer;
}

/**
 * A regular file's or a symlink's bytes (a link's bytes are its target) and the stat data of what
 * was read: `rel`, under the real folder `root`, read through its folder's handle (atParentOf), so
 * no link is followed, in its name or in a folder on the way that was flipped into one, and no FIFO
 * is waited on (O_NONBLOCK; it must still be a regular file once open). Undefined for anything else
 * (gone, a directory, a FIFO, a device). A scan passes its `held` folder handle (HeldDirectory),
 * and may pass `admit`: asked with a regular file's size once it is open, before any byte is read;
 * when it says no, nothing is read (`bytes` undefined).
 */
export function readAt(root: string, rel: string, held?: HeldDirectory, admit?: (size: number) => boolean): { stats: Stats; bytes: Buffer | undefined } | undefined {
  const read = (directory: string, name: string) => readIn(directory, name, admit);
  return held ? held.at(rel, read) : atParentOf(root, rel, (directory, name) => (isFileOrLink(`${directory}/${name}`) ? read(directory, name) : undefined));
}

/** Whether it is a regular file or a symlink now: nothing else is opened (a device's open can act). A scan's walk has just checked this. */
function isFileOrLink(file: string): boolean {
  try {
    const stats = lstatSync(file);
    return stats.isFile() || stats.isSymbolicLink();
  } catch {
    return false;
  }
}

/** `name` in the opened folder `directory` (a /proc/self/fd path): readAt's reading. */
function readIn(directory: string, name: string, admit?: (size: number) => boolean): { stats: Stats; bytes: Buffer | undefined } | undefined {
  const file = `${directory}/${name}`;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    // ELOOP: a symlink, stored as its target; anything else: gone, or not ours to read.
    return (err as NodeJS.ErrnoException).code === 'ELOOP' ? readLink(file) : undefined;
  }
  try {
    const open = fstatSync(fd);
    if (!open.isFile()) return undefined;
    if (admit && !admit(open.size)) return { stats: open, bytes: undefined };
    return { stats: open, bytes: readOpen(fd, open.size) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Up to `size` bytes of an open file, as many as it has: what readFileSync reads, without the
 * second fstat it would make (a file that grew since its fstat is read to that size).
 */
function readOpen(fd: number, size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  while (at < size) {
    const n = readSync(fd, bytes, at, size - at, null);
    if (n === 0) break;
    at += n;
  }
  return at === size ? bytes : bytes.subarray(0, at);
}

function readLink(file: string): { stats: Stats; bytes: Buffer } | undefined {
  try {
    const stats = lstatSync(file);
    return stats.isSymbolicLink() ? { stats, bytes: readlinkSync(file, { encoding: 'buffer' }) } : undefined;
  } catch {
    return undefined; // gone since
  }
}

/** A workspace entry as git would store it (readAt). */
export function readEntry(root: string, rel: string): Entry | undefined {
  const read = readAt(root, rel);
  if (!read?.bytes) return undefined;
  const mode = read.stats.isSymbolicLink() ? '120000' : read.stats.mode & 0o111 ? '100755' : '100644';
  return { mode, bytes: read.bytes };
}

/** git's id of a blob with these bytes. */
export function blobId(bytes: Buffer): string {
  return objectId('blob', bytes);
}

/**
 * Writes a blob into the store as a loose object, the way git does (objects.ts: to a new temporary
 * name, then linked to its id, so an existing object, or anything planted under that name, is never
 * written through). No program of the workspace's attributes is consulted: the bytes are stored as
 * they are.
 */
export function writeBlob(store: string, bytes: Buffer): string {
  return writeObjectSync(store, 'blob', bytes);
}
