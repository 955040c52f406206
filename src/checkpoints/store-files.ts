import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
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
