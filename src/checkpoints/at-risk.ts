import { lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { blobId, readEntry, type Entry } from './blobs';
import { git, nulList } from './git';
import type { Snapshot } from './snapshot';
import { READ_IN_WORKER_BYTES, streamBlob } from './stream-blob';

/**
 * What a checkout of a tree would write over or remove that the snapshot taken just before does
 * not hold: `file` and `link` can be saved first; `special` (a FIFO, a device) holds no bytes;
 * `repository` (a folder with its own `.git`) cannot be saved in a git tree at all. A link comes
 * with its bytes (its target); a file only with its size, read again when it is saved, one at a
 * time (streamed into the store when large: stream-blob.ts), so no list of files is held in memory.
 */
export interface AtRisk {
  path: string;
  kind: 'file' | 'link' | 'special' | 'repository';
  entry?: Entry | FileEntry;
}

/** A regular file at risk: its mode and size when it was compared. */
export interface FileEntry {
  mode: '100644' | '100755';
  size: number;
}

interface TargetEntry {
  mode: string;
  id: string;
  size: number;
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** The tree's files by path, read from the store: what a checkout of it would write. */
async function targetEntries(store: string, tree: string): Promise<Map<string, TargetEntry>> {
  const entries = new Map<string, TargetEntry>();
  for (const item of nulList(await git(['ls-tree', '-r', '-z', '-l', '--full-tree', tree], { store }))) {
    const tab = item.indexOf('\t');
    const [mode, , id, size] = item.slice(0, tab).split(/ +/);
    entries.set(item.slice(tab + 1), { mode: mode!, id: id!, size: Number(size) });
  }
  return entries;
}

/**
 * Compares every path a checkout of `tree` would write with the bytes on disk directly (not
 * through the workspace's ignore rules, the exclude list, the caps or the deny rules): a file in
 * its place, a file or link where it needs a directory, a directory where it needs a file (all
 * that is inside), and a FIFO or device `.gitattributes` git would block on. Whatever the snapshot
 * does not hold and the tree does not already have byte for byte is at risk.
 */
export async function filesAtRisk(store: string, workspace: string, tree: string, current: Snapshot): Promise<AtRisk[]> {
  const root = realpathSync(workspace);
  const target = await targetEntries(store, tree);
  const found = new Map<string, AtRisk>();
  const large = new Map<string, Stats>();
  const consider = (rel: string, stats: Stats) => {
    if (found.has(rel) || current.held.has(rel)) return;
    if (stats.isDirectory()) {
      if (lstatOrUndefined(path.join(root, rel, '.git'))) {
        found.set(rel, { path: `${rel}/`, kind: 'repository' });
        return;
      }
      for (const name of readdirSync(path.join(root, rel))) {
        const child = `${rel}/${name}`;
        const childStats = lstatOrUndefined(path.join(root, child));
        if (childStats) consider(child, childStats);
      }
      return;
    }
    if (!stats.isFile() && !stats.isSymbolicLink()) {
      found.set(rel, { path: rel, kind: 'special' });
      return;
    }
    if (stats.isFile() && stats.size > READ_IN_WORKER_BYTES) {
      large.set(rel, stats);
      return;
    }
    const entry = readEntry(root, rel);
    if (!entry) return;
    const wanted = target.get(rel);
    if (wanted && wanted.mode === entry.mode && wanted.id === blobId(entry.bytes)) return;
    if (entry.mode === '120000') found.set(rel, { path: rel, kind: 'link', entry });
    else found.set(rel, { path: rel, kind: 'file', entry: { mode: entry.mode, size: entry.bytes.length } });
  };
  // Per directory on the way: true when it is a real directory a checkout can write into.
  const open = new Map<string, boolean>();
  const isOpen = (dir: string): boolean => {
    let known = open.get(dir);
    if (known === undefined) {
      const stats = lstatOrUndefined(path.join(root, dir));
      known = stats?.isDirectory() === true;
      if (stats && !known) consider(dir, stats);
      open.set(dir, known);
    }
    return known;
  };
  for (const file of target.keys()) {
    const parts = file.split('/');
    let blocked = false;
    for (let i = 1; i < parts.length && !blocked; i += 1) blocked = !isOpen(parts.slice(0, i).join('/'));
    if (blocked) continue;
    const stats = lstatOrUndefined(path.join(root, file));
    if (stats) consider(file, stats);
  }
  for (const dir of current.specialAttributes) {
    const rel = dir ? `${dir}/.gitattributes` : '.gitattributes';
    if (!target.has(rel)) found.set(rel, { path: rel, kind: 'special' });
  }
  // One at a time, each hashed by git from the open file: the worker holds none of it.
  for (const [rel, stats] of large) {
    const mode = stats.mode & 0o111 ? '100755' : '100644';
    const wanted = target.get(rel);
    if (wanted && wanted.mode === mode && wanted.size === stats.size && (await streamBlob(store, root, rel, false))?.id === wanted.id) continue;
    found.set(rel, { path: rel, kind: 'file', entry: { mode, size: stats.size } });
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
