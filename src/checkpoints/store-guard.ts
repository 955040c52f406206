import { lstatSync, readdirSync, rmSync, type Stats } from 'node:fs';
import path from 'node:path';
import { GitError } from './git';

/** Files git would read to take objects or history from elsewhere: the worker never writes them. */
const FOREIGN = ['objects/info/alternates', 'objects/info/http-alternates', 'commondir', 'shallow', 'info/grafts'];

function kind(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symlink';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFile()) return 'a hard-linked file';
  return 'a special file';
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

function refuse(store: string, rel: string, what: string): never {
  throw new GitError(`the checkpoint store ${store} has ${rel} as ${what}, which the worker never puts there: refused (someone changed the store)`);
}

/** Directories git writes into: real directories, holding only real directories and files. */
function checkTree(store: string, rel: string, depth: number): void {
  const stats = lstatOrUndefined(path.join(store, rel));
  if (!stats) return;
  if (!stats.isDirectory()) refuse(store, rel, kind(stats));
  for (const entry of readdirSync(path.join(store, rel), { withFileTypes: true })) {
    const child = `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (depth > 0) checkTree(store, child, depth - 1);
    } else if (!entry.isFile()) refuse(store, child, kind(lstatSync(path.join(store, child))));
    else if (lstatSync(path.join(store, child)).nlink > 1) refuse(store, child, 'a hard-linked file');
  }
}

/**
 * Before the worker lets git write into a store: no symlink, FIFO or hard link where git writes
 * (object directories, refs, packed-refs), no file that makes git read another repository, and no
 * reflog (the worker keeps none; git would append to an existing one, through a link too). A
 * hostile model that reached the store could otherwise turn the worker's writes against a file
 * outside it. Object files themselves are not walked: git and the worker write each to a new
 * temporary name and link or rename it in, which never writes through an existing name.
 */
export function guardStore(store: string): void {
  const top = lstatOrUndefined(store);
  if (top && !top.isDirectory()) throw new GitError(`the checkpoint store ${store} is ${kind(top)}, not a directory: refused`);
  for (const rel of FOREIGN) if (lstatOrUndefined(path.join(store, rel))) refuse(store, rel, 'a file');
  rmSync(path.join(store, 'logs'), { recursive: true, force: true });
  checkTree(store, 'objects', 0);
  checkTree(store, 'objects/pack', 0);
  checkTree(store, 'refs', 20);
  const packed = lstatOrUndefined(path.join(store, 'packed-refs'));
  if (packed && (!packed.isFile() || packed.nlink > 1)) refuse(store, 'packed-refs', kind(packed));
}
