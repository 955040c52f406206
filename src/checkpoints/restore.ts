import { mkdtempSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filesAtRisk, type AtRisk } from './at-risk';
import { readAt, writeBlob } from './blobs';
import { git } from './git';
import { changedFiles, record, type ChangedFile } from './history';
import type { SnapshotLimits } from './limits';
import { withPrivateIndex } from './private-index';
import { snapshotWith, type Snapshot } from './snapshot';
import { ensureStore } from './store';
import { READ_IN_WORKER_BYTES, streamBlob } from './stream-blob';

/** What a restore found before writing anything: `check` may refuse it (a rewind without --force). */
export interface RestorePlan {
  current: Snapshot;
  atRisk: AtRisk[];
}

export interface RestoreOutcome {
  /** The snapshot kept before writing: the workspace as it was, the files at risk included. */
  saved: string;
  changed: ChangedFile[];
  /** Files no checkpoint held that the restore wrote over or removed, kept in `saved` first. */
  keptOutside: string[];
  /** FIFOs and devices it removed (they hold no bytes): in the way, or a `.gitattributes` git would block on. */
  removedSpecial: string[];
  leftOut: string[];
}

export class RestoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Puts the workspace back to `tree`. First a snapshot of it as it is now; then every path the
 * checkout would write or remove is compared with the bytes on disk (at-risk.ts), so that a file
 * a snapshot left out (ignored by a later `.gitignore` edit, excluded, oversized, denied, inside
 * a nested repository) is either refused by `check` or added to that snapshot; the snapshot is
 * kept on the run's ref (nothing is lost) and the checkout is git's own (`read-tree --reset -u`
 * against the index that snapshot left, which matches the workspace). A folder with its own
 * `.git` in the way is always refused: a git tree cannot hold it. Git refuses to write through a
 * symlinked directory, so a link planted in the workspace leads nowhere.
 */
export async function restoreTree(
  store: string,
  root: string,
  tree: string,
  rules: { ref: string; deny: readonly string[]; limits: SnapshotLimits; label: string; check?: (plan: RestorePlan) => void | Promise<void> },
): Promise<RestoreOutcome> {
  await ensureStore(store);
  return withPrivateIndex(store, async (index) => {
    const current = await snapshotWith(index, store, root, rules.deny, rules.limits);
    const atRisk = await filesAtRisk(store, root, tree, current);
    await rules.check?.({ current, atRisk });
    const repositories = atRisk.filter((item) => item.kind === 'repository');
    if (repositories.length > 0) {
      throw new RestoreRefused(`a folder with its own git repository is where the checkpoint puts files, and no checkpoint can hold it: ${repositories.map((item) => item.path).join(', ')} (move it away first)`);
    }
    const savable = atRisk.filter((item) => item.entry);
    const cap = rules.limits.maxTotalBytes;
    const total = savable.reduce((sum, item) => sum + entrySize(item.entry!), 0);
    if (total > cap) throw new RestoreRefused(overCap(total, cap, savable));
    let saved = current.tree;
    if (savable.length > 0) {
      const lines: string[] = [];
      let room = cap;
      for (const item of savable) {
        const line = await saveEntry(store, root, item, room);
        if (!line) continue;
        room -= line.size;
        lines.push(`${line.mode} ${line.id}\t${item.path}\0`);
      }
      await git(['update-index', '-z', '--add', '--index-info'], { store, index, input: lines.join('') });
      saved = (await git(['write-tree'], { store, index })).toString('utf8').trim();
    }
    await record(store, rules.ref, saved, `before ${rules.label}`);
    const specials = atRisk.filter((item) => item.kind === 'special');
    for (const item of specials) rmSync(path.join(root, item.path), { force: true });
    const changed = await changedFiles(store, saved, tree);
    if (changed.length > 0) await git(['read-tree', '--reset', '-u', tree], { store, workTree: root, index });
    await record(store, rules.ref, tree, rules.label);
    return { saved, changed, keptOutside: savable.map((item) => item.path), removedSpecial: specials.map((item) => item.path), leftOut: current.leftOut };
  });
}

function entrySize(entry: NonNullable<AtRisk['entry']>): number {
  return 'bytes' in entry ? entry.bytes.length : entry.size;
}

function overCap(total: number, cap: number, savable: readonly AtRisk[]): string {
  const largest = [...savable].sort((a, b) => entrySize(b.entry!) - entrySize(a.entry!)).slice(0, 5);
  const named = largest.map((item) => `${item.path} (${entrySize(item.entry!)} bytes)`).join(', ');
  return `the files no checkpoint holds that the restore would write over or remove take ${total} bytes, over the ${cap}-byte total cap (BAREAGENT_CHECKPOINT_MAX_TOTAL_BYTES) for saving them first; nothing was changed. The largest: ${named}. Move them out of the workspace, or raise the cap on the worker.`;
}

/**
 * One entry at risk into the store, read as it is now: a link from the target already read, a
 * file up to READ_IN_WORKER_BYTES read here, a larger one streamed by git (stream-blob.ts).
 * Refused when it grew past what the cap has left; undefined when it is gone (nothing to lose).
 */
async function saveEntry(store: string, root: string, item: AtRisk, room: number): Promise<{ mode: string; id: string; size: number } | undefined> {
  const entry = item.entry!;
  if ('bytes' in entry) return { mode: entry.mode, id: writeBlob(store, entry.bytes), size: entry.bytes.length };
  const grew = (size: number) => new RestoreRefused(`${item.path} grew to ${size} bytes while the restore was saving it, past the ${room} bytes left under the total cap (BAREAGENT_CHECKPOINT_MAX_TOTAL_BYTES); nothing was changed.`);
  const small = readAt(root, item.path, undefined, (size) => size <= READ_IN_WORKER_BYTES);
  if (!small) return undefined;
  if (small.bytes) {
    if (small.bytes.length > room) throw grew(small.bytes.length);
    const mode = small.stats.isSymbolicLink() ? '120000' : small.stats.mode & 0o111 ? '100755' : '100644';
    return { mode, id: writeBlob(store, small.bytes), size: small.bytes.length };
  }
  let grown: number | undefined;
  const streamed = await streamBlob(store, root, item.path, true, (size) => {
    if (size > room) grown = size;
    return grown === undefined;
  });
  if (grown !== undefined) throw grew(grown);
  if (!streamed) throw new RestoreRefused(`${item.path} changed while the restore was saving it; nothing was changed: run it again`);
  return streamed;
}

/** Writes `tree`'s files into `dir`, which must be new or empty; the workspace is not touched. */
export async function copyTree(store: string, tree: string, dir: string): Promise<number> {
  mkdirSync(dir, { recursive: true });
  if (readdirSync(dir).length > 0) throw new Error(`${dir} is not empty: give a new or empty directory`);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'bareagent-copy-'));
  try {
    await git(['read-tree', '-u', '--reset', tree], { store, workTree: path.resolve(dir), index: path.join(scratch, 'index') });
    return (await changedFiles(store, undefined, tree)).length;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
