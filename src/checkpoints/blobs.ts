import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readlinkSync } from 'node:fs';
import { atParentOf } from './directory-handle';
import { objectId, writeObjectSync } from './objects';

/** A workspace entry as git would store it: its mode and its bytes (a link's bytes are its target). */
export interface Entry {
  mode: '100644' | '100755' | '120000';
  bytes: Buffer;
}

/**
 * Reads a regular file or a symlink (`rel`, under the real folder `root`) without following a
 * link, in its name or in a folder on the way that was flipped into one (atParentOf), or waiting
 * on a FIFO: the file is opened with O_NOFOLLOW and O_NONBLOCK and must still be a regular file
 * once open. Undefined for anything else (gone, a directory, a FIFO, a device).
 */
export function readEntry(root: string, rel: string): Entry | undefined {
  return atParentOf(root, rel, (directory, name) => {
    const file = `${directory}/${name}`;
    let stats;
    try {
      stats = lstatSync(file);
      if (stats.isSymbolicLink()) return { mode: '120000' as const, bytes: readlinkSync(file, { encoding: 'buffer' }) };
    } catch {
      return undefined;
    }
    if (!stats.isFile()) return undefined;
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return undefined;
    }
    try {
      const open = fstatSync(fd);
      if (!open.isFile()) return undefined;
      return { mode: open.mode & 0o111 ? ('100755' as const) : ('100644' as const), bytes: readFileSync(fd) };
    } finally {
      closeSync(fd);
    }
  });
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
