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
  let fd: number;
  try {
    fd = openSync(expected, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return undefined; // gone, a link now (ELOOP), or no longer a directory (ENOTDIR)
  }
  try {
    let real: string;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return undefined;
    }
    return real === expected ? use(`/proc/self/fd/${fd}`) : undefined;
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
