import { randomUUID } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A directory of the store that the worker writes into, made sure to be a real directory: a
 * symlink, FIFO or file planted in its place is removed (only the link itself), never followed.
 */
export function realDirectory(dir: string): void {
  let stats;
  try {
    stats = lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { mode: 0o700 });
    return;
  }
  if (stats.isDirectory()) return;
  unlinkSync(dir);
  mkdirSync(dir, { mode: 0o700 });
}

/**
 * Writes a file of the store whole: into a new temporary name (`wx`: a link planted at that name
 * makes the open fail, it is not followed), then renamed over the real name, which replaces a
 * symlink, FIFO or hard link planted there instead of writing through it.
 */
export function writeStoreFile(file: string, content: string): void {
  realDirectory(path.dirname(file));
  const temporary = `${file}.bareagent-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    writeFileSync(temporary, content, { flag: 'wx', mode: 0o600 });
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * `writeStoreFile`, unless the file is already a regular file of its own (no link, no second
 * name) holding exactly `content`: checked through a descriptor opened without following a link
 * and without waiting on a FIFO, so a checkpoint that finds the store as it left it writes nothing.
 */
export function keepStoreFile(file: string, content: string): void {
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const stats = fstatSync(fd);
      if (stats.isFile() && stats.nlink === 1 && stats.size === Buffer.byteLength(content) && readFileSync(fd, 'utf8') === content) return;
    } finally {
      closeSync(fd);
    }
  } catch {
    // A link, a FIFO, gone: written anew.
  }
  writeStoreFile(file, content);
}
