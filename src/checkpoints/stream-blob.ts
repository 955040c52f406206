import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { atParentOf } from './directory-handle';
import { git } from './git';

/**
 * Files above this size are hashed (and stored) by a `git hash-object` child instead of being
 * read into the worker: what a restore keeps of a file no checkpoint held can be any size.
 */
export const READ_IN_WORKER_BYTES = 1024 * 1024;

/**
 * Below this, git hashes a blob in memory; above, it streams it into a pack of its own (its
 * bulk check-in), holding a few megabytes whatever the file's size. Set for these children only:
 * a snapshot's `update-index` keeps git's default (a pack per file there would pile up).
 */
const STREAM_THRESHOLD = 'core.bigFileThreshold=512k';

export interface StreamedBlob {
  id: string;
  mode: '100644' | '100755';
  size: number;
}

/**
 * A regular file of the workspace as a blob, read by git from the descriptor opened here (no link
 * followed, in its name or in a folder on the way: atParentOf; no FIFO waited on), so neither the
 * worker nor git holds the file in memory and the worker's event loop only waits. `write` stores
 * it in the store; without it, only its id is computed. Undefined when it is not a regular file
 * (gone, a link, a FIFO, a device); `admit` may refuse it by its size before git reads a byte.
 */
export async function streamBlob(store: string, root: string, rel: string, write: boolean, admit?: (size: number) => boolean): Promise<StreamedBlob | undefined> {
  const opened = atParentOf(root, rel, (directory, name) => {
    try {
      return openSync(`${directory}/${name}`, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return undefined;
    }
  });
  if (opened === undefined) return undefined;
  let stats: Stats;
  try {
    stats = fstatSync(opened);
    if (!stats.isFile() || (admit && !admit(stats.size))) {
      closeSync(opened);
      return undefined;
    }
  } catch (err) {
    closeSync(opened);
    throw err;
  }
  // git reads the descriptor as its stdin; this process's copy is closed once the child has its own.
  const hashed = git(['hash-object', ...(write ? ['-w'] : []), '--no-filters', '--stdin'], { store, stdinFd: opened, config: [STREAM_THRESHOLD] });
  closeSync(opened);
  const id = (await hashed).toString('utf8').trim();
  return { id, mode: stats.mode & 0o111 ? '100755' : '100644', size: stats.size };
}
