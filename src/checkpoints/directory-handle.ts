import { closeSync, constants, openSync, readlinkSync } from 'node:fs';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * Runs `use` on a directory only if it still is the directory `expected` names (an absolute, real
 * path): it is opened without following a link as its last component, and the descriptor's real
 * path must be `expected` exactly, so a folder on the way that a process flipped into a link to a
 * host folder is seen as absent instead of as the host folder. `use` gets `/proc/self/fd/<n>`:
 * names under it resolve inside the opened directory (as `openat` would), whatever happens to the
 * path afterwards. Undefined when the directory is not there any more.
 */
export function atDirectory<T>(expected: string, use: (directory: string) => T): T | undefined {
  // Undefined: gone, a link now (ELOOP), no longer a directory (ENOTDIR), or elsewhere than expected.
  const fd = openChecked(expected);
  if (fd === undefined) return undefined;
  try {
    return use(`/proc/self/fd/${fd}`);
  } finally {
    closeSync(fd);
  }
}

/** `atDirectory` for the folder holding `rel` (workspace-relative, `/`-separated), with the entry's own name. */
export function atParentOf<T>(root: string, rel: string, use: (directory: string, name: string) => T): T | undefined {
  const slash = rel.lastIndexOf('/');
  const parent = slash < 0 ? root : `${root}/${rel.slice(0, slash)}`;
  return atDirectory(parent, (directory) => use(directory, rel.slice(slash + 1)));
}

/**
 * `atParentOf` for many paths in path order, as a scan reads them: each folder is opened and
 * checked as `atDirectory` does, once while its files follow one another, instead of once a file.
 * `close` when done.
 */
export class HeldDirectory {
  private held: { expected: string; fd: number | undefined } | undefined;

  constructor(private readonly root: string) {}

  at<T>(rel: string, use: (directory: string, name: string) => T): T | undefined {
    const slash = rel.lastIndexOf('/');
    const expected = slash < 0 ? this.root : `${this.root}/${rel.slice(0, slash)}`;
    if (this.held?.expected !== expected) {
      this.close();
      this.held = { expected, fd: openChecked(expected) };
    }
    const { fd } = this.held;
    return fd === undefined ? undefined : use(`/proc/self/fd/${fd}`, rel.slice(slash + 1));
  }

  close(): void {
    if (this.held?.fd !== undefined) closeSync(this.held.fd);
    this.held = undefined;
  }
}

/** A descriptor of the directory `expected` names, only if it still is that directory (atDirectory's check). */
function openChecked(expected: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(expected, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (readlinkSync(`/proc/self/fd/${fd}`) === expected) return fd;
  } catch {
    // fall through: closed below
  }
  closeSync(fd);
  return undefined;
}
