import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readEntry, writeBlob } from './blobs';
import { git, nulList } from './git';
import { isDenied, type SnapshotLimits } from './limits';
import { withPrivateIndex } from './private-index';
import { ensureStore } from './store';
import { holdFifos, scanWorkspace, underSpecialAttributes } from './workspace-scan';

export interface Snapshot {
  tree: string;
  files: number;
  skipped: number;
  /** The files the snapshot holds, by path: a restore compares the workspace against them. */
  held: Set<string>;
  /** What it left out besides ignored and denied files, one line each: `sub/ (its own git repository)`. */
  leftOut: string[];
  /** Directories whose `.gitattributes` is a FIFO or device: a checkout would block on them too. */
  specialAttributes: string[];
}

/**
 * The workspace as a git tree in the store: the files git would list (tracked by an earlier
 * snapshot, or untracked and not ignored by the workspace's `.gitignore`), less the exclude
 * list, what deny rules forbid to read_file, files over the caps and anything that is neither a
 * regular file nor a symlink (FIFOs, devices, sockets, nested repositories). Symlinks are stored
 * as links, never followed. The store's index keeps stat data, so only changed files are read.
 * Objects are written before the tree that names them: a kill at any point leaves loose objects
 * at most, never a tree that points at nothing.
 */
export async function snapshot(store: string, root: string, deny: readonly string[], limits: SnapshotLimits): Promise<Snapshot> {
  await ensureStore(store);
  return withPrivateIndex(store, (index) => snapshotWith(index, store, root, deny, limits));
}

/**
 * The snapshot with a given index; `restoreTree` goes on with the same index to check out another
 * tree. A FIFO or device named `.gitignore` is read by git as empty (workspace-scan.ts); the files
 * under a FIFO or device `.gitattributes` are read here and stored as blobs directly, since git's
 * `update-index` would open that attributes file and wait.
 */
export async function snapshotWith(index: string, store: string, workspace: string, deny: readonly string[], limits: SnapshotLimits): Promise<Snapshot> {
  // Resolved once: the scan and the direct reads then open each folder only if it still is root + its path.
  const root = realpathSync(workspace);
  const options = { store, workTree: root, index };
  const scan = scanWorkspace(root, limits.exclude);
  const excludes = limits.exclude.flatMap((pattern) => ['-x', pattern]);
  const release = holdFifos(root, scan.specialIgnores);
  let listed: Buffer;
  let ignoredTracked: Buffer;
  try {
    [listed, ignoredTracked] = await Promise.all([
      git(['ls-files', '-z', '--cached', '--others', '--exclude-standard', ...excludes], options),
      git(['ls-files', '-z', '--cached', '--ignored', '--exclude-standard', ...excludes], options),
    ]);
  } finally {
    release();
  }
  const ignored = new Set(nulList(ignoredTracked));
  const keep: string[] = [];
  const direct: string[] = [];
  const drop: string[] = [];
  const leftOut: string[] = [
    ...scan.repositories.map((dir) => `${dir}/ (its own git repository)`),
    ...scan.excluded.map((dir) => `${dir}/ (excluded)`),
    ...scan.specialIgnores.map((file) => `${file} (a FIFO or device: read as empty)`),
    ...scan.specialAttributes.map((dir) => `${dir ? `${dir}/` : ''}.gitattributes (a FIFO or device: not read)`),
  ];
  let skipped = 0;
  let total = 0;
  const dirs = new Map<string, boolean>();
  for (const file of [...new Set(nulList(listed))].sort()) {
    if (ignored.has(file) || isDenied(file, deny) || !plainParents(root, file, dirs)) {
      drop.push(file);
      continue;
    }
    const stats = lstatOrUndefined(path.join(root, file));
    if (!stats) drop.push(file);
    else if (stats.isSymbolicLink()) keep.push(file);
    else if (stats.isFile() && stats.size <= limits.maxFileBytes && total + stats.size <= limits.maxTotalBytes) {
      total += stats.size;
      (underSpecialAttributes(file, scan.specialAttributes) ? direct : keep).push(file);
    } else {
      skipped += 1;
      drop.push(file);
      if (stats.isFile()) leftOut.push(`${file} (${stats.size > limits.maxFileBytes ? `over the ${limits.maxFileBytes}-byte file cap` : `past the ${limits.maxTotalBytes}-byte total cap`})`);
      else if (!stats.isDirectory()) leftOut.push(`${file} (${stats.isFIFO() ? 'a FIFO' : 'a special file'})`);
    }
  }
  const stored = directEntries(store, root, direct);
  for (const file of direct) if (!stored.has(file)) drop.push(file);
  if (drop.length > 0) await git(['update-index', '-z', '--force-remove', '--stdin'], { ...options, input: nulJoin(drop) });
  if (keep.length > 0) await git(['update-index', '-z', '--add', '--remove', '--stdin'], { ...options, input: nulJoin(keep) });
  if (stored.size > 0) await git(['update-index', '-z', '--index-info'], { ...options, input: [...stored.values()].join('') });
  const tree = (await git(['write-tree'], options)).toString('utf8').trim();
  const held = new Set([...keep, ...stored.keys()]);
  return { tree, files: held.size, skipped, held, leftOut, specialAttributes: scan.specialAttributes };
}

/** `update-index --index-info` lines for files read here, by path, their blobs written first. */
function directEntries(store: string, root: string, files: readonly string[]): Map<string, string> {
  const lines = new Map<string, string>();
  for (const file of files) {
    const entry = readEntry(root, file);
    if (entry) lines.set(file, `${entry.mode} ${writeBlob(store, entry.bytes)}\t${file}\0`);
  }
  return lines;
}

function nulJoin(files: string[]): string {
  return files.map((file) => `${file}\0`).join('');
}

function lstatOrUndefined(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * True when no directory on the way to `file` is a symlink: an index entry `dir/a` from an earlier
 * snapshot must not be read through a `dir` that now links out of the workspace.
 */
function plainParents(root: string, file: string, seen: Map<string, boolean>): boolean {
  const dir = path.dirname(file);
  if (dir === '.') return true;
  const known = seen.get(dir);
  if (known !== undefined) return known;
  let plain: boolean;
  try {
    plain = realpathSync(path.join(root, dir)) === path.join(root, dir);
  } catch {
    plain = false;
  }
  seen.set(dir, plain);
  return plain;
}
