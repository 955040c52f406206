import { mkdtempSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { git } from './git';
import { changedFiles, record, type ChangedFile } from './history';
import type { SnapshotLimits } from './limits';
import { withPrivateIndex } from './private-index';
import { snapshotWith } from './snapshot';
import { ensureStore } from './store';

/**
 * Puts the workspace back to `tree`: first a snapshot of it as it is now (kept on the run's ref,
 * so nothing is lost), then git's own checkout of the difference (`read-tree --reset -u` against
 * the index that snapshot left, which matches the workspace). Only files a snapshot holds are
 * written or removed: ignored, excluded, denied and oversized files are left as they are. Git
 * refuses to write through a symlinked directory, so a link planted in the workspace leads nowhere.
 */
export async function restoreTree(
  store: string,
  root: string,
  tree: string,
  rules: { ref: string; deny: readonly string[]; limits: SnapshotLimits; label: string },
): Promise<{ saved: string; changed: ChangedFile[] }> {
  await ensureStore(store);
  return withPrivateIndex(store, async (index) => {
    const current = await snapshotWith(index, store, root, rules.deny, rules.limits);
    await record(store, rules.ref, current.tree, `before ${rules.label}`);
    const changed = await changedFiles(store, current.tree, tree);
    if (changed.length > 0) await git(['read-tree', '--reset', '-u', tree], { store, workTree: root, index });
    await record(store, rules.ref, tree, rules.label);
    return { saved: current.tree, changed };
  });
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
