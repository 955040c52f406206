import { SYSTEM_PACKAGES, type Check, type SystemPackage } from './check';

export type Family = 'debian' | 'fedora' | 'macos' | 'other';

/**
 * The packages that would fix the checks that are not ok (required or not), and the system packages
 * preferred to a registry's copy in use (`prefer`), in the table's order.
 */
export function packagesFor(checks: Check[]): SystemPackage[] {
  const names = checks.flatMap((c) => (c.status !== 'ok' && c.package ? [c.package] : c.status === 'ok' && c.prefer ? [c.prefer] : []));
  return [...new Set(names)];
}

/** The commands that install them on this family, each an argv; undefined where we know no package manager. */
export function installCommands(family: Family, packages: SystemPackage[]): string[][] | undefined {
  if (!packages.length) return [];
  if (family === 'debian') {
    const names = packages.map((p) => SYSTEM_PACKAGES[p].debian);
    return [['apt-get', 'update'], ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', ...names]];
  }
  if (family === 'fedora') return [['dnf', 'install', '-y', ...packages.map((p) => SYSTEM_PACKAGES[p].fedora)]];
  return undefined;
}
