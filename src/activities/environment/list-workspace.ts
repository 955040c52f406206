import path from 'node:path';
import { readDirectoryAt } from '../tools/safe-walk';
import { MAX_LISTED_NAME_CHARS, MAX_LISTING_DEPTH, MAX_LISTING_ENTRIES } from '../../common/run-environment';

/** Directories whose contents say nothing the model needs: shown with a count, never listed. */
const SUMMARISED = new Set(['.git', 'node_modules', '.venv', '__pycache__', 'dist', 'build', 'target', '.next', '.cache']);
/** A directory with more entries than this is read no further: opendir streams, so a huge one costs only this much. */
const MAX_READ_PER_DIR = 1000;

interface Entry {
  name: string;
  kind: 'dir' | 'file' | 'link' | 'other';
}

/**
 * A name as it may enter the system prompt: control characters (newlines included) and other
 * invisible or direction-changing characters visibly escaped, and long names cut, so that a
 * file name cannot start a line of its own or pass for an instruction.
 */
export function escapeName(name: string): string {
  const escaped = name.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > MAX_LISTED_NAME_CHARS ? `${escaped.slice(0, MAX_LISTED_NAME_CHARS - 1)}…` : escaped;
}

/** Read through the walk's check: a folder flipped into a link to a host folder lists nothing here. */
async function readEntries(dir: string): Promise<{ entries: Entry[]; more: boolean }> {
  const read = await readDirectoryAt(dir, { max: MAX_READ_PER_DIR });
  if (!read) throw new Error(`${dir} is not the directory it was`);
  const entries: Entry[] = read.entries.map((entry) => ({ name: entry.name, kind: entry.kind === 'special' ? 'other' : entry.kind }));
  entries.sort((a, b) => (a.kind === 'dir') !== (b.kind === 'dir') ? (a.kind === 'dir' ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { entries, more: read.more };
}

async function countEntries(dir: string): Promise<string> {
  try {
    const { entries, more } = await readEntries(dir);
    return more ? `${MAX_READ_PER_DIR}+ entries` : `${entries.length} entries`;
  } catch {
    return 'unreadable';
  }
}

/**
 * The workspace's top levels, breadth first, at most `MAX_LISTING_ENTRIES` lines: directories
 * end in `/`, symlinks in `@` (never followed), `.git/`, `node_modules/` and the like show only
 * how many entries they hold. Returns the lines and how many entries the caps left out.
 */
export async function listWorkspace(root: string): Promise<{ listing: string; omitted: number }> {
  const lines: string[] = [];
  let omitted = 0;
  const queue: Array<{ dir: string; rel: string; depth: number }> = [{ dir: root, rel: '', depth: 1 }];
  const children = new Map<string, string[]>();
  const order: string[] = [];
  while (queue.length > 0) {
    const { dir, rel, depth } = queue.shift() as { dir: string; rel: string; depth: number };
    let read: { entries: Entry[]; more: boolean };
    try {
      read = await readEntries(dir);
    } catch {
      continue;
    }
    const own: string[] = [];
    children.set(rel, own);
    for (const entry of read.entries) {
      const shown = `${rel}${escapeName(entry.name)}`;
      if (order.length >= MAX_LISTING_ENTRIES) {
        omitted += 1;
        continue;
      }
      if (entry.kind === 'dir' && SUMMARISED.has(entry.name)) {
        own.push(`${shown}/ (${await countEntries(path.join(dir, entry.name))}, not listed)`);
      } else if (entry.kind === 'dir') {
        own.push(`${shown}/`);
        if (depth < MAX_LISTING_DEPTH) queue.push({ dir: path.join(dir, entry.name), rel: `${shown}/`, depth: depth + 1 });
      } else {
        own.push(entry.kind === 'link' ? `${shown}@` : shown);
      }
      order.push(shown);
    }
    if (read.more) omitted += 1;
  }
  // Depth first for reading: each directory's entries right under it.
  const emit = (rel: string, indent: string) => {
    for (const line of children.get(rel) ?? []) {
      lines.push(`${indent}${line.slice(rel.length)}`);
      if (line.endsWith('/') && children.has(line)) emit(line, `${indent}  `);
    }
  };
  emit('', '');
  return { listing: lines.join('\n'), omitted };
}
