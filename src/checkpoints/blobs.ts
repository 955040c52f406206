import { createHash, randomUUID } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { realDirectory } from './store-files';

/** A workspace entry as git would store it: its mode and its bytes (a link's bytes are its target). */
export interface Entry {
  mode: '100644' | '100755' | '120000';
  bytes: Buffer;
}

/**
 * Reads a regular file or a symlink without following a link or waiting on a FIFO: the file is
 * opened with O_NOFOLLOW and O_NONBLOCK and must still be a regular file once open. Undefined for
 * anything else (gone, a directory, a FIFO, a device).
 */
export function readEntry(file: string): Entry | undefined {
  let stats;
  try {
    stats = lstatSync(file);
  } catch {
    return undefined;
  }
  if (stats.isSymbolicLink()) return { mode: '120000', bytes: readlinkSync(file, { encoding: 'buffer' }) };
  if (!stats.isFile()) return undefined;
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const open = fstatSync(fd);
    if (!open.isFile()) return undefined;
    return { mode: open.mode & 0o111 ? '100755' : '100644', bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}

/** git's id of a blob with these bytes. */
export function blobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * Writes a blob into the store as a loose object, the way git does: to a new temporary name, then
 * linked to its id (an existing object, or anything planted under that name, is never written
 * through). No program of the workspace's attributes is consulted: the bytes are stored as they are.
 */
export function writeBlob(store: string, bytes: Buffer): string {
  const id = blobId(bytes);
  const dir = path.join(store, 'objects', id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  realDirectory(path.join(store, 'objects'));
  realDirectory(dir);
  const temporary = path.join(dir, `tmp_obj_bareagent_${process.pid}_${randomUUID().slice(0, 8)}`);
  try {
    const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o444);
    try {
      const header = Buffer.from(`blob ${bytes.length}\0`);
      writeFileSync(fd, deflateSync(Buffer.concat([header, bytes])));
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } finally {
    rmSync(temporary, { force: true });
  }
  return id;
}
