import { chmodSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';

/**
 * The operator's state is readable by its owner only: the SQLite file holds every run's history
 * (what the agents read, secrets included), the token opens the approvers' page.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the directory (and any missing parent) 0700; one that exists and is ours (made by an
 * older version, or by hand) is narrowed to 0700 too. Its parents keep their modes: they are the
 * user's, not ours.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stats = lstatSync(dir);
  if (stats.isDirectory() && (stats.mode & 0o077) !== 0 && stats.uid === process.getuid?.()) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Writes the file 0600, also when it existed with a wider mode. */
export function writePrivateFile(file: string, data: string | NodeJS.ArrayBufferView): void {
  writeFileSync(file, data, { mode: PRIVATE_FILE_MODE });
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** Narrows an existing file to 0600 (made by an older version, or restored from a backup); absent files are left absent. */
export function narrowToPrivate(file: string): void {
  try {
    chmodSync(file, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
