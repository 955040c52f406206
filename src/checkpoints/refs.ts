import { closeSync, constants, lstatSync, openSync, readFileSync, rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GitError } from './git';
import { refTree as gitRefTree } from './history';
import { readLooseObject, writeObject } from './objects';
import { realDirectory } from './store-files';

/**
 * The run's ref read and moved in the worker process, the way `git update-ref` does it: the new
 * value goes into `<ref>.lock` (created O_EXCL, so nothing planted there is written through), the
 * value read before is checked again under the lock, and the lock is renamed over the ref. A
 * worker killed in between leaves the lock; a lock older than STALE_LOCK_MS is such a leftover
 * (a live move holds it for well under a millisecond) and is removed.
 */
const STALE_LOCK_MS = 10_000;
const ZERO = '0000000000000000000000000000000000000000';

function readSmall(file: string): string | undefined {
  try {
    if (!lstatSync(file).isFile()) return undefined;
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** The commit a ref names: its loose file, else its line in packed-refs; undefined for none. */
export function readRef(store: string, ref: string): string | undefined {
  const loose = readSmall(path.join(store, ref))?.trim();
  if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose;
  const packed = readSmall(path.join(store, 'packed-refs'));
  for (const line of packed?.split('\n') ?? []) {
    const [id, name] = line.split(' ');
    if (name === ref && id && /^[0-9a-f]{40}$/.test(id)) return id;
  }
  return undefined;
}

/** Commit id → its tree, for commits this worker read or wrote (they never change). */
const treeOfCommit = new Map<string, string>();

async function commitTree(store: string, commit: string, ref: string): Promise<string | undefined> {
  const known = treeOfCommit.get(commit);
  if (known) return known;
  const object = readLooseObject(store, commit);
  // Packed (someone ran git gc in the store): git reads it.
  const tree = object?.type === 'commit' ? /^tree ([0-9a-f]{40})\n/.exec(object.bytes.toString('latin1'))?.[1] : await gitRefTree(store, ref);
  if (tree) treeOfCommit.set(commit, tree);
  return tree;
}

/**
 * Moves the run's ref to a new commit of `tree` whose parent is the ref's commit, unless the ref
 * is at that tree already (a retried checkpoint adds nothing). The commit is written before the
 * ref names it. Resolves with the commit the ref is at.
 */
export async function recordTree(store: string, ref: string, tree: string, message: string): Promise<string> {
  for (let attempt = 0; ; attempt += 1) {
    const head = readRef(store, ref);
    if (head && (await commitTree(store, head, ref)) === tree) return head;
    const seconds = Math.floor(Date.now() / 1000);
    const who = `BareAgent <checkpoints@bareagent.invalid> ${seconds} +0000`;
    const body = `tree ${tree}\n${head ? `parent ${head}\n` : ''}author ${who}\ncommitter ${who}\n\n${message}\n`;
    const commit = await writeObject(store, 'commit', Buffer.from(body, 'utf8'));
    treeOfCommit.set(commit, tree);
    const moved = await moveRef(store, ref, head, commit);
    if (moved === 'moved') return commit;
    if (attempt >= 50) throw new GitError(`the ref ${ref} of ${store} stayed locked (${moved}): checkpoint not recorded`);
    await sleep(moved === 'locked' ? 20 : 0);
  }
}

/**
 * Off the event loop: renaming a just-written file over another makes ext4 start writing the new
 * one's data first, 1-3 ms a checkpoint at 50 runs at once that the worker's thread sat in.
 */
async function moveRef(store: string, ref: string, expected: string | undefined, commit: string): Promise<'moved' | 'locked' | 'raced'> {
  const file = path.join(store, ref);
  const parts = ref.split('/');
  for (let i = 1; i < parts.length; i += 1) realDirectory(path.join(store, ...parts.slice(0, i)));
  const lock = `${file}.lock`;
  let handle;
  try {
    handle = await open(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - lstatSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true });
    } catch {
      // Released meanwhile.
    }
    return 'locked';
  }
  let renamed = false;
  try {
    await handle.writeFile(`${commit}\n`);
    await handle.close();
    handle = undefined;
    if ((readRef(store, ref) ?? ZERO) !== (expected ?? ZERO)) return 'raced';
    await rename(lock, file);
    renamed = true;
    return 'moved';
  } finally {
    await handle?.close();
    if (!renamed) await rm(lock, { force: true });
  }
}
