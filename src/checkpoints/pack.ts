import { createHash, randomUUID } from 'node:crypto';
import { closeSync, constants, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import * as zlib from 'node:zlib';
import { realDirectory } from './store-files';

/**
 * A packfile (version 2, no deltas) and its index (version 2), written in the worker process: what
 * `git` itself reads, one file pair for many objects instead of a loose file each. Loose objects
 * cost four metadata calls apiece (create, write, link, unlink), which made the first checkpoint
 * of a large workspace most of its time; a pack is two files whatever the count.
 *
 * Placed the way store files are: each written whole under a new temporary name (O_EXCL, no link
 * followed) in `objects/pack`, then renamed to its name (`pack-<checksum>`); the `.pack` first, the
 * `.idx` after it, so git never sees an index whose pack is not whole. A worker killed halfway
 * leaves a temporary file, or a `.pack` with no `.idx` that git ignores, never a half object.
 */
export interface PackObject {
  type: 'blob' | 'tree' | 'commit';
  id: string;
  /** The object's content, zlib-deflated (without git's `<type> <length>\0` header). */
  deflated: Buffer;
  length: number;
}

const TYPE_CODE = { commit: 1, tree: 2, blob: 3 } as const;

const crc32: (data: Buffer, value?: number) => number = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32 ?? tableCrc32;

let table: Uint32Array | undefined;
/** CRC-32 (IEEE) for a Node 20 older than zlib.crc32 (20.15). */
function tableCrc32(data: Buffer, value = 0): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = ~value >>> 0;
  for (let i = 0; i < data.length; i += 1) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

/** An object's entry header: its type and length, seven bits a byte after the first four. */
function entryHeader(type: PackObject['type'], length: number): Buffer {
  const bytes: number[] = [];
  let rest = length;
  let byte = (TYPE_CODE[type] << 4) | (rest & 0x0f);
  rest = Math.floor(rest / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
}

/** The pack's bytes and, for its index, each object's offset and CRC-32. */
function packBytes(objects: readonly PackObject[]): { parts: Buffer[]; checksum: Buffer; offsets: number[]; crcs: number[] } {
  const hash = createHash('sha1');
  const parts: Buffer[] = [];
  const add = (part: Buffer) => {
    parts.push(part);
    hash.update(part);
  };
  add(Buffer.concat([Buffer.from('PACK'), uint32(2), uint32(objects.length)]));
  let offset = 12;
  const offsets: number[] = [];
  const crcs: number[] = [];
  for (const object of objects) {
    const header = entryHeader(object.type, object.length);
    offsets.push(offset);
    crcs.push(crc32(object.deflated, crc32(header)));
    add(header);
    add(object.deflated);
    offset += header.length + object.deflated.length;
  }
  const checksum = hash.digest();
  parts.push(checksum);
  return { parts, checksum, offsets, crcs };
}

/** The index: a fan-out table, the ids sorted, their CRC-32s and offsets, the pack's checksum, its own. */
function indexBytes(objects: readonly PackObject[], offsets: readonly number[], crcs: readonly number[], packChecksum: Buffer): Buffer {
  const order = objects.map((object, at) => ({ id: Buffer.from(object.id, 'hex'), at }));
  order.sort((a, b) => Buffer.compare(a.id, b.id));
  const fanout = Buffer.alloc(256 * 4);
  const counts = new Array<number>(256).fill(0);
  for (const { id } of order) counts[id[0]!]! += 1;
  let running = 0;
  for (let i = 0; i < 256; i += 1) {
    running += counts[i]!;
    fanout.writeUInt32BE(running, i * 4);
  }
  const large = offsets.some((offset) => offset >= 0x80000000);
  const small = Buffer.alloc(order.length * 4);
  const wide: Buffer[] = [];
  order.forEach(({ at }, i) => {
    const offset = offsets[at]!;
    if (large && offset >= 0x80000000) {
      small.writeUInt32BE((0x80000000 | wide.length) >>> 0, i * 4);
      const eight = Buffer.alloc(8);
      eight.writeBigUInt64BE(BigInt(offset));
      wide.push(eight);
    } else small.writeUInt32BE(offset, i * 4);
  });
  const body = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63]),
    uint32(2),
    fanout,
    ...order.map(({ id }) => id),
    ...order.map(({ at }) => uint32(crcs[at]!)),
    small,
    ...wide,
    packChecksum,
  ]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

function placeFile(dir: string, name: string, parts: readonly Buffer[]): void {
  const temporary = path.join(dir, `tmp_pack_bareagent_${process.pid}_${randomUUID().slice(0, 8)}`);
  try {
    // Read-only and the owner's only, as git makes its packs in a store shared 0600.
    const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o400);
    try {
      for (const part of parts) writeSync(fd, part);
    } finally {
      closeSync(fd);
    }
    // A rename, not a link: the guard refuses a hard-linked file in objects/pack, even for a moment.
    renameSync(temporary, path.join(dir, name));
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Writes the objects as one pack and its index into the store; returns the pack's name. */
export function writePack(store: string, objects: readonly PackObject[]): string {
  const dir = path.join(store, 'objects', 'pack');
  realDirectory(path.join(store, 'objects'));
  realDirectory(dir);
  const { parts, checksum, offsets, crcs } = packBytes(objects);
  const name = `pack-${checksum.toString('hex')}`;
  placeFile(dir, `${name}.pack`, parts);
  placeFile(dir, `${name}.idx`, [indexBytes(objects, offsets, crcs, checksum)]);
  return name;
}
