import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readdirSync, realpathSync, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { changedFiles, type ChangedFile } from './history';
import { IgnoreRules } from './ignore-rules';
import { isDenied, type SnapshotLimits } from './limits';
import { ObjectBatch, parseTree, readLooseObject, treeBytes, writeObject, type TreeEntry } from './objects';
import { recordTree } from './refs';
import { ensureStore } from './store';
import { writeStoreFile } from './store-files';
import { readAt } from './blobs';
import { atDirectory, HeldDirectory } from './directory-handle';
import { plainExcludesOf } from './workspace-scan';

/**
 * Checkpoints in the worker process, at the cost of what changed. The store keeps, next to its
 * objects, the newest snapshot's file list with each file's stat data (`bareagent-index`, a cache
 * like git's index: losing or spoiling it costs a re-read of the files, never a wrong snapshot).
 * Two ways to take one:
 * - known paths (after `write_file`/`edit_file`): only those files are read, the rest of the
 *   newest snapshot is taken as it is; anything that could change what the rules let in (a
 *   `.gitignore` written, a path over a cap or left out before, other rules) falls back to a scan;
 * - a scan (after `bash`, jobs, MCP calls, at run start): the workspace is walked the way git's
 *   listing would be, and a file is read only when its stat data (size, mtime, ctime, inode, mode)
 *   differs from the index's, or when its mtime is not older than that snapshot's start (git's
 *   racy-timestamp rule: a file changed in the same clock tick as the last read looks unchanged).
 * Blobs, trees and the commit are loose objects written here (objects.ts), the ref moved here
 * (refs.ts): no git process, and none at all when nothing changed.
 */

export interface CheckpointTaken {
  tree: string;
  files: number;
  skipped: number;
  leftOut: string[];
  /** What differs from `previous` (every file when there is none). */
  changed: ChangedFile[];
  /** How it was taken: `paths` (only the known paths read), `scan`; and how many files were read. */
  mode: 'paths' | 'scan';
  read: number;
}

interface FileEntry {
  mode: TreeEntry['mode'];
  id: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** The newest snapshot of a workspace, as the index keeps it. */
interface Index {
  version: 1;
  root: string;
  /** The deny rules and limits it was taken under: other rules, and a known-path checkpoint scans. */
  rules: string;
  tree: string;
  /** Date.now() when its scan began, less a margin: a file with an mtime from then on is read again. */
  stamp: number;
  total: number;
  skipped: number;
  leftOut: string[];
  files: Map<string, FileEntry>;
  /** Each directory's tree id (in memory only): a known-path checkpoint rewrites just the trees on its paths' way. */
  trees?: Map<string, string>;
}

/** A known-path checkpoint that turns out to need a scan (a cap reached). */
class NeedsScan extends Error {}

const INDEX_FILE = 'bareagent-index';
/** The filesystem's clock may lag the process's (coarse timestamps): files touched this close to a scan's start are read again next time. */
const RACY_MARGIN_MS = 250;
/** A scan yields to the event loop every this many files read, so the worker's other tasks go on. */
const YIELD_EVERY = 200;

/** The index by store, as this worker last wrote or read it; the file is checked for another writer by its stat. */
const cached = new Map<string, { index: Index; stat: string }>();
/** One checkpoint at a time per store in this process: they share the index. */
const queues = new Map<string, Promise<unknown>>();

function statKey(stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

function rulesKey(root: string, deny: readonly string[], limits: SnapshotLimits): string {
  return JSON.stringify({ root, deny, limits });
}

function loadIndex(store: string): Index | undefined {
  const file = path.join(store, INDEX_FILE);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    cached.delete(store);
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const hit = cached.get(store);
    if (hit && hit.stat === statKey(stats)) return hit.index;
    const raw = JSON.parse(readFileSync(fd, 'utf8')) as Omit<Index, 'files'> & { files: Array<[string, FileEntry['mode'], string, number, number, number, number]> };
    if (raw.version !== 1 || !Array.isArray(raw.files)) return undefined;
    const files = new Map<string, FileEntry>();
    for (const [name, mode, id, size, mtimeMs, ctimeMs, ino] of raw.files) files.set(name, { mode, id, size, mtimeMs, ctimeMs, ino });
    const index: Index = { ...raw, files };
    cached.set(store, { index, stat: statKey(stats) });
    return index;
  } catch {
    // Spoilt or of another version: a cache, read the files again.
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function saveIndex(store: string, index: Index): void {
  clearTimeout(pendingSaves.get(store));
  pendingSaves.delete(store);
  const files = [...index.files].map(([name, e]) => [name, e.mode, e.id, e.size, e.mtimeMs, e.ctimeMs, e.ino]);
  writeStoreFile(path.join(store, INDEX_FILE), JSON.stringify({ ...index, trees: undefined, files }));
  try {
    cached.set(store, { index, stat: statKey(lstatSync(path.join(store, INDEX_FILE))) });
  } catch {
    cached.delete(store);
  }
}

/** Deferred writes of an index a known-path checkpoint made: off the checkpoint's path (it is a cache; a lost one costs a scan). */
const pendingSaves = new Map<string, NodeJS.Timeout>();
const SAVE_AFTER_MS = 2000;

/** The index in memory at once, on disk a little later unless another checkpoint of the store saves first. */
function saveLater(store: string, index: Index): void {
  const hit = cached.get(store);
  cached.set(store, { index, stat: hit?.stat ?? '' });
  clearTimeout(pendingSaves.get(store));
  const timer = setTimeout(() => {
    pendingSaves.delete(store);
    void serialized(store, async () => {
      const now = cached.get(store);
      // Saved by a later checkpoint, or the file replaced by another worker's (theirs is as good).
      if (now?.index !== index) return;
      try {
        if (now.stat && statKey(lstatSync(path.join(store, INDEX_FILE))) !== now.stat) return;
      } catch {
        // None yet: written now.
      }
      saveIndex(store, index);
    }).catch(() => undefined);
  }, SAVE_AFTER_MS);
  timer.unref();
  pendingSaves.set(store, timer);
}

/** Runs `work` after every checkpoint of the same store this process started before it. */
function serialized<T>(store: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(store) ?? Promise.resolve();
  const run = before.then(work, work);
  const settled = run.catch(() => undefined);
  queues.set(store, settled);
  void settled.then(() => {
    if (queues.get(store) === settled) queues.delete(store);
  });
  return run;
}

export interface CheckpointAsk {
  store: string;
  root: string;
  ref: string;
  message: string;
  deny: readonly string[];
  limits: SnapshotLimits;
  /** The tree of the run's previous checkpoint: what `changed` counts against. */
  previous?: string | undefined;
  /** The run's newest checkpoint when it is not `previous`: known paths apply only on it. */
  base?: string | undefined;
  /** Workspace paths (relative or absolute) that are all that changed since the newest snapshot; unset: scan. */
  paths?: readonly string[] | undefined;
}

export function takeCheckpoint(ask: CheckpointAsk): Promise<CheckpointTaken> {
  return serialized(ask.store, () => take(ask));
}

async function take(ask: CheckpointAsk): Promise<CheckpointTaken> {
  const { store } = ask;
  // Resolved once: every directory below is then opened only if it still is root + its path.
  const root = realpathSync(ask.root);
  await ensureStore(store);
  const rules = rulesKey(root, ask.deny, ask.limits);
  const before = loadIndex(store);
  const base = before && before.root === root ? before : undefined;
  const stamp = Date.now() - RACY_MARGIN_MS;
  // Known paths are all that changed only against the snapshot this run took last: another
  // run's in between, or a checkpoint of ours that failed, and the workspace is scanned.
  let known = ask.paths && base && base.rules === rules && (ask.base ?? ask.previous) === base.tree ? knownPaths(root, base, ask) : undefined;
  let taken: { index: Index; read: number } | undefined;
  if (known) {
    try {
      taken = await applyKnown(store, root, base!, known, ask.limits);
    } catch (err) {
      if (!(err instanceof NeedsScan)) throw err;
      known = undefined;
    }
  }
  taken ??= await scan(store, root, base, ask, rules, stamp);
  const { index, read } = taken;
  const dirty = known ? dirsOnTheWay(known) : undefined;
  index.trees = await writeTrees(store, index.files, dirty && base?.trees ? { trees: base.trees, dirty } : undefined);
  index.tree = index.trees.get('')!;
  const unchanged = base !== undefined && base.tree === index.tree && read === 0;
  if (known) saveLater(store, index);
  else if (!unchanged || base !== before) saveIndex(store, index);
  await recordTree(store, ask.ref, index.tree, ask.message);
  const changed = await changesSince(store, ask.previous, index, base, known ? [...known] : undefined);
  return { tree: index.tree, files: index.files.size, skipped: index.skipped, leftOut: index.leftOut, changed, mode: known ? 'paths' : 'scan', read };
}

/**
 * The workspace-relative paths of a known-path checkpoint, or undefined when it must scan: a path
 * outside the workspace or its store's rules, a `.gitignore`, a file the newest snapshot left out
 * or that the rules now leave out for a reason a scan names (a cap, a nested repository).
 */
function knownPaths(root: string, base: Index, ask: CheckpointAsk): Set<string> | undefined {
  const rels = new Set<string>();
  const rules = new IgnoreRules(root, ask.limits.exclude);
  const plainExcludes = plainExcludesOf(ask.limits.exclude);
  for (const requested of ask.paths ?? []) {
    let real: string;
    try {
      // The tools write through a link inside the workspace: the file that changed is its target.
      real = realpathSync(path.resolve(root, requested));
    } catch {
      return undefined;
    }
    const rel = path.relative(root, real).split(path.sep).join('/');
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (name === '.gitignore' || name === '.gitattributes' || rel.split('/').includes('.git')) return undefined;
    if (base.leftOut.some((line) => leftOutCovers(line, rel))) return undefined;
    if (rel.split('/').slice(0, -1).some((dir) => plainExcludes.has(dir)) || insideRepository(root, rel)) return undefined;
    if (isDenied(rel, ask.deny) || rules.ignoredOnTheWay(rel)) {
      if (base.files.has(rel)) return undefined;
      continue;
    }
    rels.add(rel);
  }
  return rels;
}


/** Whether a line of what a snapshot left out is about `rel`: the file itself (`a.bin (over ...)`) or a folder above it (`lib/ (its own git repository)`). */
function leftOutCovers(line: string, rel: string): boolean {
  if (line.startsWith(`${rel} (`)) return true;
  const folder = line.indexOf('/ (');
  return folder > 0 && rel.startsWith(line.slice(0, folder + 1));
}

/** Whether a directory on the way to `rel` holds its own `.git`: git lists such a folder as one entry. */
function insideRepository(root: string, rel: string): boolean {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i += 1) if (isRepository(path.join(root, ...parts.slice(0, i), '.git'))) return true;
  return false;
}

/** What git takes for a repository of its own: a `.git` file (a gitfile) or a directory with a HEAD. */
function isRepository(dotGit: string): boolean {
  try {
    return lstatSync(dotGit).isFile() || lstatSync(path.join(dotGit, 'HEAD')).isFile();
  } catch {
    return false;
  }
}

async function applyKnown(store: string, root: string, base: Index, rels: ReadonlySet<string>, limits: SnapshotLimits): Promise<{ index: Index; read: number }> {
  const files = new Map(base.files);
  let total = base.total;
  let read = 0;
  for (const rel of rels) {
    const had = files.get(rel);
    if (had) total -= had.size;
    files.delete(rel);
    const stats = lstatOrUndefined(path.join(root, rel));
    if (!stats || stats.isDirectory()) continue;
    const entry = await storeEntry(store, root, rel);
    read += 1;
    if (!entry) continue;
    if (entry.mode !== '120000') {
      if (entry.size > limits.maxFileBytes || total + entry.size > limits.maxTotalBytes) throw new NeedsScan();
      total += entry.size;
    }
    files.set(rel, entry);
  }
  return { index: { ...base, files, total }, read };
}


function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * A regular file or symlink read into a blob (readAt: by its folder's handle, no link followed, no
 * FIFO waited on); its entry has the stat data of what was read. With `admit`, a file it refuses
 * (by its size, once open) is not read: undefined.
 */
async function storeEntry(store: string, root: string, rel: string, scanning?: { batch: ObjectBatch; held: HeldDirectory; admit?: (size: number) => boolean }): Promise<FileEntry | undefined> {
  const read = readAt(root, rel, scanning?.held, scanning?.admit);
  if (!read?.bytes) return undefined;
  const { stats, bytes } = read;
  // git's rule: the owner's execute bit makes a file 100755. The size is what was read (a file may grow after its fstat).
  const mode = stats.isSymbolicLink() ? '120000' : stats.mode & 0o100 ? '100755' : '100644';
  return { mode, id: await (scanning ? scanning.batch.write('blob', bytes) : writeObject(store, 'blob', bytes)), size: bytes.length, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

function special(entry: Dirent): boolean {
  return entry.isFIFO() || entry.isCharacterDevice() || entry.isBlockDevice();
}

/** Whether the index's entry still describes the file: same stat data, last changed before that snapshot began. */
function fresh(entry: FileEntry | undefined, stats: Stats, stamp: number): entry is FileEntry {
  if (!entry) return false;
  const isLink = stats.isSymbolicLink();
  if (isLink !== (entry.mode === '120000')) return false;
  if (!isLink && (stats.mode & 0o100 ? '100755' : '100644') !== entry.mode) return false;
  return entry.size === stats.size && entry.mtimeMs === stats.mtimeMs && entry.ctimeMs === stats.ctimeMs && entry.ino === stats.ino && stats.mtimeMs < stamp;
}

/**
 * The workspace walked as git's listing would walk it (not into `.git`, nested repositories,
 * excluded or ignored directories), never following a link; files read only when the index's
 * stat data no longer describes them. The caps are applied in path order, as before.
 */
async function scan(store: string, root: string, base: Index | undefined, ask: CheckpointAsk, rules: string, stamp: number): Promise<{ index: Index; read: number }> {
  const ignore = new IgnoreRules(root, ask.limits.exclude);
  const plainExcludes = plainExcludesOf(ask.limits.exclude);
  const repositories: string[] = [];
  const excluded: string[] = [];
  const specialAttributes: string[] = [];
  const specials: Array<{ rel: string; fifo: boolean }> = [];
  const candidates: Array<{ rel: string; stats?: Stats }> = [];
  // Each folder is read through its handle (atDirectory): one flipped into a link to a host
  // folder while the walk runs is read as nothing, never as the host folder.
  const walk = (rel: string) => atDirectory(rel ? `${root}/${rel}` : root, (directory) => walkAt(rel, directory));
  const walkAt = (rel: string, directory: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    if (rel !== '' && entries.some((entry) => entry.name === '.git') && isRepository(`${directory}/.git`)) {
      repositories.push(rel);
      return;
    }
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (plainExcludes.has(entry.name)) excluded.push(child);
        else if (!ignore.ignored(child, true)) walk(child);
        continue;
      }
      if (special(entry) && (entry.name === '.gitignore' || entry.name === '.gitattributes')) {
        if (entry.name === '.gitattributes') specialAttributes.push(rel);
        // A special .gitignore is named by the rules when they meet it.
        continue;
      }
      if (ignore.ignored(child, false) || isDenied(child, ask.deny)) continue;
      if (entry.isFile() || entry.isSymbolicLink()) {
        // Stat data only for what the index may already hold; a new file's comes with its read.
        if (!base?.files.has(child)) candidates.push({ rel: child });
        else {
          const stats = lstatOrUndefined(`${directory}/${entry.name}`);
          if (stats) candidates.push({ rel: child, stats });
        }
      } else if (!entry.isDirectory() && entry.isFIFO()) {
        // git lists no FIFO it does not track: named only when the newest snapshot held a file there.
        if (base?.files.has(child)) specials.push({ rel: child, fifo: true });
      } else if (base?.files.has(child)) specials.push({ rel: child, fifo: false });
    }
  };
  walk('');
  candidates.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const files = new Map<string, FileEntry>();
  const capped: string[] = [];
  // A nested repository is an entry git lists and the snapshot leaves out.
  let skipped = specials.length + repositories.length;
  let total = 0;
  let read = 0;
  // Folders opened once for their files in a row; the blobs packed when there are many (a first checkpoint).
  const scanning = { batch: new ObjectBatch(store), held: new HeldDirectory(root) };
  // The caps, in path order: undefined, or why a file of `size` bytes is left out.
  const capOf = (size: number): string | undefined =>
    size > ask.limits.maxFileBytes ? `over the ${ask.limits.maxFileBytes}-byte file cap` : total + size > ask.limits.maxTotalBytes ? `past the ${ask.limits.maxTotalBytes}-byte total cap` : undefined;
  try {
    for (const { rel, stats } of candidates) {
      // The bytes counted against the total cap before the read (the read's own size replaces them).
      let counted = 0;
      let refused: string | undefined;
      if (stats) {
        if (!stats.isSymbolicLink()) {
          refused = capOf(stats.size);
          if (refused) {
            skipped += 1;
            capped.push(`${rel} (${refused})`);
            continue;
          }
          total += counted = stats.size;
        }
        const known = base?.files.get(rel);
        if (base && fresh(known, stats, base.stamp)) {
          files.set(rel, known);
          continue;
        }
      }
      // A file new to the index is capped by the size its open descriptor has, before any byte is read.
      const admit = stats
        ? undefined
        : (size: number) => {
            refused = capOf(size);
            if (refused) return false;
            total += counted = size;
            return true;
          };
      const entry = await storeEntry(store, root, rel, { ...scanning, ...(admit ? { admit } : {}) });
      if (refused) {
        skipped += 1;
        capped.push(`${rel} (${refused})`);
        continue;
      }
      read += 1;
      if (read % YIELD_EVERY === 0) await yieldToLoop();
      if (!entry) continue;
      if (entry.mode !== '120000') total += entry.size - counted;
      files.set(rel, entry);
    }
  } finally {
    scanning.held.close();
  }
  await scanning.batch.finish();
  const leftOut = [
    ...repositories.map((dir) => `${dir}/ (its own git repository)`),
    ...excluded.map((dir) => `${dir}/ (excluded)`),
    ...ignore.specialIgnores.map((file) => `${file} (a FIFO or device: read as empty)`),
    ...specialAttributes.map((dir) => `${dir ? `${dir}/` : ''}.gitattributes (a FIFO or device: not read)`),
    ...capped,
    ...specials.map(({ rel, fifo }) => `${rel} (${fifo ? 'a FIFO' : 'a special file'})`),
  ];
  return { index: { version: 1, root, rules, tree: '', stamp, total, skipped, leftOut, files }, read };
}

/** Every directory on the way to each path, the root included. */
function dirsOnTheWay(rels: Iterable<string>): Set<string> {
  const dirs = new Set<string>(['']);
  for (const rel of rels) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i += 1) dirs.add(parts.slice(0, i).join('/'));
  }
  return dirs;
}

/**
 * The trees of `files`, written deepest first (a tree never names an object not yet written);
 * each directory's tree id. With `reuse`, a directory not `dirty` keeps its id from before.
 */
async function writeTrees(store: string, files: ReadonlyMap<string, FileEntry>, reuse?: { trees: ReadonlyMap<string, string>; dirty: ReadonlySet<string> }): Promise<Map<string, string>> {
  const dirs = new Map<string, TreeEntry[]>([['', []]]);
  const entriesOf = (dir: string): TreeEntry[] => {
    let entries = dirs.get(dir);
    if (!entries) {
      entries = [];
      dirs.set(dir, entries);
      const slash = dir.lastIndexOf('/');
      entriesOf(slash < 0 ? '' : dir.slice(0, slash)).push({ name: dir.slice(slash + 1), mode: '40000', id: '' });
    }
    return entries;
  };
  for (const [rel, entry] of files) {
    const slash = rel.lastIndexOf('/');
    entriesOf(slash < 0 ? '' : rel.slice(0, slash)).push({ name: rel.slice(slash + 1), mode: entry.mode, id: entry.id });
  }
  const ids = new Map<string, string>();
  const depth = (dir: string) => (dir === '' ? 0 : dir.split('/').length);
  const order = [...dirs.keys()].sort((a, b) => depth(b) - depth(a));
  for (const dir of order) {
    const kept = reuse && !reuse.dirty.has(dir) ? reuse.trees.get(dir) : undefined;
    if (kept) {
      ids.set(dir, kept);
      continue;
    }
    const entries = dirs.get(dir)!.map((entry) => (entry.mode === '40000' ? { ...entry, id: ids.get(dir ? `${dir}/${entry.name}` : entry.name)! } : entry));
    ids.set(dir, await writeObject(store, 'tree', treeBytes(entries)));
  }
  return ids;
}

/** What changed since `previous`: from the index when `previous` is its base, else by reading the two trees. */
async function changesSince(store: string, previous: string | undefined, index: Index, base: Index | undefined, known: string[] | undefined): Promise<ChangedFile[]> {
  if (!previous) return [...index.files.keys()].sort().map((rel) => ({ status: 'A', path: rel }));
  if (previous === index.tree) return [];
  if (base && base.tree === previous) {
    const changed: ChangedFile[] = [];
    const names = known ?? [...new Set([...base.files.keys(), ...index.files.keys()])];
    for (const rel of names.sort()) {
      const was = base.files.get(rel);
      const now = index.files.get(rel);
      if (!was && now) changed.push({ status: 'A', path: rel });
      else if (was && !now) changed.push({ status: 'D', path: rel });
      else if (was && now && (was.id !== now.id || was.mode !== now.mode)) changed.push({ status: (was.mode === '120000') !== (now.mode === '120000') ? 'T' : 'M', path: rel });
    }
    return changed;
  }
  const from = flatten(store, previous);
  if (!from) return changedFiles(store, previous, index.tree);
  const changed: ChangedFile[] = [];
  for (const rel of [...new Set([...from.keys(), ...index.files.keys()])].sort()) {
    const was = from.get(rel);
    const now = index.files.get(rel);
    if (!was && now) changed.push({ status: 'A', path: rel });
    else if (was && !now) changed.push({ status: 'D', path: rel });
    else if (was && now && (was.id !== now.id || was.mode !== now.mode)) changed.push({ status: (was.mode === '120000') !== (now.mode === '120000') ? 'T' : 'M', path: rel });
  }
  return changed;
}

/** A tree's files by path, read from loose objects; undefined when one is not loose (git reads it then). */
function flatten(store: string, tree: string): Map<string, { mode: string; id: string }> | undefined {
  const out = new Map<string, { mode: string; id: string }>();
  const walk = (id: string, prefix: string): boolean => {
    const object = readLooseObject(store, id);
    if (object?.type !== 'tree') return false;
    for (const entry of parseTree(object.bytes)) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.mode === '40000') {
        if (!walk(entry.id, rel)) return false;
      } else out.set(rel, { mode: entry.mode, id: entry.id });
    }
    return true;
  };
  return walk(tree, '') ? out : undefined;
}

