import { createHash, randomUUID } from 'node:crypto';
import { closeSync, constants, existsSync, lstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { deflate, deflateSync, inflateSync } from 'node:zlib';
import { writePack, type PackObject } from './pack';
import { realDirectory } from './store-files';

/**
 * Git's loose objects written and read in the worker process, no `git` started: a blob, tree or
 * commit is `<type> <length>\0<bytes>`, zlib-deflated, at `objects/<2 hex>/<38 hex>` under its
 * SHA-1. Written to a new temporary name (O_EXCL: a link planted there makes the open fail, it is
 * not followed), then renamed to its id, so an existing object (or anything planted under that
 * name) is replaced, never written through, and a worker killed halfway leaves a
 * temporary file at most, never a half object under a real id.
 */
export type ObjectType = 'blob' | 'tree' | 'commit';

const deflateAsync = promisify(deflate);

/** Objects above this are deflated on libuv's thread pool, so a large file does not hold up the worker's event loop. */
const ASYNC_DEFLATE_BYTES = 64 * 1024;

/** zlib level 1: several times faster than git's default 6, within a few percent of its size on source text; git reads any level. */
const LEVEL = 1;

/**
 * An object deflated on this thread. Node's zlib costs tens of microseconds a call whatever the
 * size, much of it the output buffer and the window it sets up: sized to the object here, which
 * compresses the same bytes (a window needs be no larger than what it compresses), in about half
 * the time for the small files most of a workspace is.
 */
function deflateHere(raw: Buffer): Buffer {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(raw.length + 1))));
  return deflateSync(raw, { level: LEVEL, windowBits, chunkSize: Math.min(16 * 1024, Math.max(1024, raw.length + 64)) });
}

export function objectId(type: ObjectType, bytes: Buffer): string {
  return createHash('sha1').update(`${type} ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Objects this worker wrote or found in each store (a store never loses an object it names): no look at the disk for them. */
const present = new Map<string, Set<string>>();
const PRESENT_KEPT = 1_000_000;

function remember(store: string, id: string): void {
  let ids = present.get(store);
  if (!ids || ids.size >= PRESENT_KEPT) present.set(store, (ids = new Set()));
  ids.add(id);
}

function objectFile(store: string, id: string): string {
  return path.join(store, 'objects', id.slice(0, 2), id.slice(2));
}

/** The same, deflated on this thread: for the few objects a rewind or a restore saves. */
export function writeObjectSync(store: string, type: ObjectType, bytes: Buffer): string {
  const id = objectId(type, bytes);
  const file = objectFile(store, id);
  if (!present.get(store)?.has(id) && !existsSync(file)) place(store, file, deflateHere(Buffer.concat([Buffer.from(`${type} ${bytes.length}\0`), bytes])));
  remember(store, id);
  return id;
}

/** Writes the object unless the store has it; resolves with its id. */
export async function writeObject(store: string, type: ObjectType, bytes: Buffer): Promise<string> {
  const id = objectId(type, bytes);
  const file = objectFile(store, id);
  if (present.get(store)?.has(id)) return id;
  if (existsSync(file)) {
    remember(store, id);
    return id;
  }
  const raw = Buffer.concat([Buffer.from(`${type} ${bytes.length}\0`), bytes]);
  const packed = raw.length > ASYNC_DEFLATE_BYTES ? await deflateAsync(raw, { level: LEVEL }) : deflateHere(raw);
  place(store, file, packed);
  remember(store, id);
  return id;
}

/** Fewer new objects than this in a batch are written loose: a pack per handful of files would pile up packs. */
const PACK_AT_LEAST = 32;
/** A batch's pack is written once its deflated objects reach this, so a large scan holds a bounded amount in memory. */
const PACK_FLUSH_BYTES = 32 * 1024 * 1024;

/**
 * Objects written together, as one checkpoint's scan writes its blobs: a few are written loose as
 * `writeObject` would; many go into packs (pack.ts), which spares the loose files' metadata calls.
 * An id is remembered as present only once its pack is in place, so a batch that fails halfway
 * never lets a later checkpoint name an object the store lacks. `finish` before anything (a tree,
 * a ref) names the objects.
 */
export class ObjectBatch {
  private waiting: Array<{ type: ObjectType; id: string; bytes: Buffer }> = [];
  private packing: PackObject[] = [];
  private packingBytes = 0;
  private packMode = false;
  private readonly ids = new Set<string>();

  constructor(private readonly store: string) {}

  async write(type: ObjectType, bytes: Buffer): Promise<string> {
    // Large objects deflate off the event loop and are few: loose, as before.
    if (bytes.length > ASYNC_DEFLATE_BYTES) return writeObject(this.store, type, bytes);
    const id = objectId(type, bytes);
    // Not looked for on disk: an object packed again beside its loose copy costs bytes, never correctness.
    if (this.ids.has(id) || present.get(this.store)?.has(id)) return id;
    this.ids.add(id);
    if (this.packMode) this.pack(type, id, bytes);
    else {
      this.waiting.push({ type, id, bytes });
      if (this.waiting.length >= PACK_AT_LEAST) {
        this.packMode = true;
        for (const object of this.waiting) this.pack(object.type, object.id, object.bytes);
        this.waiting = [];
      }
    }
    return id;
  }

  /** Writes what is held: loose when it is a handful, else the last pack. */
  async finish(): Promise<void> {
    for (const { type, bytes } of this.waiting) await writeObject(this.store, type, bytes);
    this.waiting = [];
    this.flush();
  }

  private pack(type: ObjectType, id: string, bytes: Buffer): void {
    const deflated = deflateHere(bytes);
    this.packing.push({ type, id, deflated, length: bytes.length });
    this.packingBytes += deflated.length;
    if (this.packingBytes >= PACK_FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.packing.length === 0) return;
    writePack(this.store, this.packing);
    for (const { id } of this.packing) remember(this.store, id);
    this.packing = [];
    this.packingBytes = 0;
  }
}

function place(store: string, file: string, packed: Buffer): void {
  const dir = path.dirname(file);
  realDirectory(path.join(store, 'objects'));
  realDirectory(dir);
  const temporary = path.join(dir, `tmp_obj_bareagent_${process.pid}_${randomUUID().slice(0, 8)}`);
  let placed = false;
  try {
    // Read-only as git makes them, and the owner's only: the store is the operator's private state.
    const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o400);
    try {
      writeSync(fd, packed);
    } finally {
      closeSync(fd);
    }
    // A rename, where git links then unlinks: one change to the folder instead of two (each a
    // journal entry, most of a small checkpoint's cost). It replaces a name, never writes through
    // it, and an object that appeared under that name meanwhile holds the same bytes.
    renameSync(temporary, file);
    placed = true;
  } finally {
    if (!placed) rmSync(temporary, { force: true });
  }
}

/**
 * A loose object's type and bytes, or undefined when it is not a loose object (packed by a `git gc`
 * someone ran, or absent): the caller asks git then. Read without following a link planted there.
 */
export function readLooseObject(store: string, id: string): { type: string; bytes: Buffer } | undefined {
  if (!/^[0-9a-f]{40}$/.test(id)) return undefined;
  const file = objectFile(store, id);
  let fd: number;
  try {
    if (!lstatSync(file).isFile()) return undefined;
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const raw = inflateSync(readFileSync(fd));
    const nul = raw.indexOf(0);
    const [type, length] = raw.subarray(0, nul).toString('latin1').split(' ');
    const bytes = raw.subarray(nul + 1);
    if (Number(length) !== bytes.length || objectId(type as ObjectType, bytes) !== id) return undefined;
    return { type: type!, bytes };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface TreeEntry {
  name: string;
  mode: '100644' | '100755' | '120000' | '40000';
  id: string;
}

/**
 * A tree object's bytes in git's canonical form: entries sorted by name as bytes, a directory's
 * name compared as if it ended in `/` (what `git fsck` checks), a directory's mode `40000`.
 */
export function treeBytes(entries: readonly TreeEntry[]): Buffer {
  const keyed = entries.map((entry) => ({ entry, key: Buffer.from(entry.mode === '40000' ? `${entry.name}/` : entry.name, 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Buffer[] = [];
  for (const { entry } of keyed) parts.push(Buffer.from(`${entry.mode} ${entry.name}\0`, 'utf8'), Buffer.from(entry.id, 'hex'));
  return Buffer.concat(parts);
}

/** The entries of a tree object's bytes. */
export function parseTree(bytes: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at);
    const nul = bytes.indexOf(0, space);
    const mode = bytes.subarray(at, space).toString('latin1') as TreeEntry['mode'];
    const name = bytes.subarray(space + 1, nul).toString('utf8');
    entries.push({ mode, name, id: bytes.subarray(nul + 1, nul + 21).toString('hex') });
    at = nul + 21;
  }
  return entries;
}
