import { randomUUID } from 'node:crypto';
import { constants, copyFileSync, lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

/** Private indexes older than this are left over from a killed worker: removed on the next use. */
const STALE_MS = 60 * 60_000;

/**
 * Runs `work` with a private copy of the store's index (its stat data spares re-reading files
 * that did not change) and puts the copy in place with a rename when the work succeeded. A
 * worker killed in the middle leaves a stray copy, never a half-written index nor an
 * `index.lock` that would stop every later checkpoint; two checkpoints of one workspace at once
 * never wait on each other's lock. The shared index is copied only when it is a regular file of
 * its own (a link or FIFO planted there is dropped: it is a cache), into a new name, and the
 * rename back replaces whatever is at `index` rather than writing through it.
 */
export async function withPrivateIndex<T>(store: string, work: (index: string) => Promise<T>): Promise<T> {
  removeStale(store);
  const shared = path.join(store, 'index');
  const index = path.join(store, `index.bareagent-${process.pid}-${randomUUID().slice(0, 8)}`);
  if (plainFile(shared)) copyFileSync(shared, index, constants.COPYFILE_EXCL);
  else rmSync(shared, { force: true, recursive: true });
  try {
    const result = await work(index);
    renameSync(index, shared);
    return result;
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
  }
}

function plainFile(file: string): boolean {
  try {
    const stats = lstatSync(file);
    return stats.isFile() && stats.nlink === 1;
  } catch {
    return false;
  }
}

function removeStale(store: string): void {
  let names: string[];
  try {
    names = readdirSync(store).filter((name) => name.startsWith('index.bareagent-'));
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(store, name);
    try {
      if (Date.now() - lstatSync(file).mtimeMs > STALE_MS) rmSync(file, { force: true });
    } catch {
      // Gone already: another worker cleaned it.
    }
  }
}
