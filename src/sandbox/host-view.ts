import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { SystemEntry } from './bwrap-args';

/**
 * The only host directories a command sees besides its workspace: the system, read-only.
 * Toolchains installed under /usr (node in /usr/bin, go in /usr/local/go) work inside; anything
 * under /root, /home, /opt, /var, /srv, /mnt or the worker's own directories does not exist there.
 */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** Secrets in /etc that stay hidden even though /etc is visible. */
const MASK_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/security/opasswd'];
const MASK_DIRS = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d'];

export interface HostView {
  system: SystemEntry[];
  maskFiles: string[];
  maskDirs: string[];
}

let cached: HostView | undefined;

/** The host's layout does not change while the worker runs: looked at once. */
export function hostView(): HostView {
  cached ??= {
    system: [...SYSTEM_DIRS.flatMap(systemEntry), ...resolverEntry()],
    maskFiles: MASK_FILES.filter((f) => existsSync(f)),
    maskDirs: MASK_DIRS.filter((d) => existsSync(d)),
  };
  return cached;
}

function systemEntry(dir: string): SystemEntry[] {
  try {
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) return [{ path: dir, symlinkTo: readlinkSync(dir) }];
    return stat.isDirectory() ? [{ path: dir }] : [];
  } catch {
    return [];
  }
}

/** systemd-resolved links /etc/resolv.conf into /run, which is not visible: bind its target so `full` resolves names. */
function resolverEntry(): SystemEntry[] {
  try {
    const target = realpathSync('/etc/resolv.conf');
    const covered = SYSTEM_DIRS.some((dir) => target === dir || target.startsWith(`${dir}/`));
    return covered ? [] : [{ path: target }];
  } catch {
    return [];
  }
}

/** Extra paths of a run: absolute, existing (resolved), others skipped. */
export function existingRealPaths(paths: readonly string[]): string[] {
  return paths.filter((p) => path.isAbsolute(p) && existsSync(p)).map((p) => realpathSync(p));
}
