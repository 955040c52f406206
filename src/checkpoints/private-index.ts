import { randomUUID } from 'node:crypto';
import { copyFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

/** Private indexes older than this are left over from a killed worker: removed on the next use. */
const STALE_MS = 60 * 60_000;

/**
 * Runs `work` with a private copy of the store's index (its stat data spares re-reading files
 * that did not change) and puts the copy in place with a rename when the work succeeded. A
 * worker killed in the middle leaves a stray copy, never a half-written index nor an
 * `index.lock` that would stop every later checkpoint; two checkpoints of one workspace at once
 * never wait on each other's lock.
 */
export async function withPrivateIndex<T>(store: string, work: (index: string) => Promise<T>): Promise<T> {
  removeStale(store);
  const shared = path.join(store, 'index');
  const index = path.join(store, `index.bareagent-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    copyFileSync(shared, index);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  try {
    const result = await work(index);
    renameSync(index, shared);
    return result;
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
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
      if (Date.now() - statSync(file).mtimeMs > STALE_MS) rmSync(file, { force: true });
    } catch {
      // Gone already: another worker cleaned it.
    }
  }
}
