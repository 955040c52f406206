import { visibleText } from '../common/visible-text';
import { git, nulList } from './git';

/** The tree a run's ref points at (its newest checkpoint or rewind), or undefined for a new run. */
export async function refTree(store: string, ref: string): Promise<string | undefined> {
  const out = await git(['rev-parse', '--verify', '--quiet', `${ref}^{tree}`], { store, okCodes: [1] });
  return out.toString('utf8').trim() || undefined;
}

/**
 * Moves the run's ref to a commit of `tree` (its parent the ref's commit), unless it is there
 * already: taking the same snapshot twice (a retried activity) adds nothing. The ref moves only
 * after the commit exists, and only from the value read (update-ref's old-value check).
 */
export async function record(store: string, ref: string, tree: string, message: string): Promise<void> {
  const head = (await git(['rev-parse', '--verify', '--quiet', ref], { store, okCodes: [1] })).toString('utf8').trim();
  if (head && (await refTree(store, ref)) === tree) return;
  const commit = (await git(['commit-tree', tree, ...(head ? ['-p', head] : []), '-m', message], { store })).toString('utf8').trim();
  await git(['update-ref', '-m', message, ref, commit, head || '0000000000000000000000000000000000000000'], { store });
}

export interface ChangedFile {
  /** A added, M modified, D deleted, T type changed (a file became a link) */
  status: string;
  path: string;
}

/** What differs between two trees, file by file; every file of `to` when there is no `from`. */
export async function changedFiles(store: string, from: string | undefined, to: string): Promise<ChangedFile[]> {
  if (!from) return nulList(await git(['ls-tree', '-r', '-z', '--name-only', to], { store })).map((p) => ({ status: 'A', path: p }));
  if (from === to) return [];
  const items = nulList(await git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to], { store }));
  const changed: ChangedFile[] = [];
  for (let i = 0; i + 1 < items.length; i += 2) changed.push({ status: items[i]!, path: items[i + 1]! });
  return changed;
}

export function describeChanges(changed: readonly ChangedFile[]): string {
  if (changed.length === 0) return 'no file changed';
  const names = changed.slice(0, 5).map((c) => visibleText(c.path)).join(', ');
  return `${changed.length} file${changed.length === 1 ? '' : 's'} changed: ${names}${changed.length > 5 ? ', ...' : ''}`;
}

/** Whether the store holds this tree (a snapshot from another workspace's store does not). */
export async function hasTree(store: string, tree: string): Promise<boolean> {
  const out = await git(['cat-file', '-t', tree], { store, okCodes: [1, 128] }).catch(() => Buffer.from(''));
  return out.toString('utf8').trim() === 'tree';
}

/** Whether `tree` is one of the run's own snapshots: a checkpoint, or what a rewind kept before writing. */
export async function isOnRef(store: string, ref: string, tree: string): Promise<boolean> {
  const out = await git(['log', '--format=%T', ref, '--'], { store, okCodes: [128] }).catch(() => Buffer.from(''));
  return out.toString('utf8').split('\n').includes(tree);
}
