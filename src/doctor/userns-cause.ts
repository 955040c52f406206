import { readFileSync } from 'node:fs';
import type { Fix } from './check';

/** The kernel settings that decide whether an unprivileged process may make user namespaces. */
export interface UsernsSysctls {
  /** kernel.apparmor_restrict_unprivileged_userns (Ubuntu 23.10+): 1 = only profiles that allow it. */
  apparmorRestrict?: string;
  /** kernel.unprivileged_userns_clone (Debian's patch): 0 = off. */
  unprivilegedClone?: string;
  /** user.max_user_namespaces: 0 = off (Fedora/RHEL's way). */
  maxUserNamespaces?: string;
}

export function readUsernsSysctls(root = '/proc/sys'): UsernsSysctls {
  const read = (file: string) => {
    try {
      return readFileSync(`${root}/${file}`, 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const values: UsernsSysctls = {};
  const apparmor = read('kernel/apparmor_restrict_unprivileged_userns');
  const clone = read('kernel/unprivileged_userns_clone');
  const max = read('user/max_user_namespaces');
  if (apparmor !== undefined) values.apparmorRestrict = apparmor;
  if (clone !== undefined) values.unprivilegedClone = clone;
  if (max !== undefined) values.maxUserNamespaces = max;
  return values;
}

/**
 * Why bwrap, present, did not start: named from the kernel settings first (they are the usual
 * cause and say exactly which switch), then from bwrap's own words.
 */
export function bwrapFailureCause(stderr: string, sysctls: UsernsSysctls, root: boolean): { why: string; fix: Fix } {
  const persist = (setting: string) => `sudo sysctl -w ${setting} && echo ${setting} | sudo tee /etc/sysctl.d/60-bareagent-userns.conf`;
  if (sysctls.apparmorRestrict === '1' && !root) {
    return {
      why: 'AppArmor forbids unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)',
      fix: {
        debian: `${persist('kernel.apparmor_restrict_unprivileged_userns=0')}   (or give /usr/bin/bwrap an AppArmor profile with "userns,")`,
        other: 'the sandbox needs unprivileged user namespaces',
      },
    };
  }
  if (sysctls.unprivilegedClone === '0' && !root) {
    return { why: 'unprivileged user namespaces are switched off (kernel.unprivileged_userns_clone=0)', fix: { debian: persist('kernel.unprivileged_userns_clone=1') } };
  }
  if (sysctls.maxUserNamespaces === '0') {
    return {
      why: 'user namespaces are switched off (user.max_user_namespaces=0)',
      fix: { debian: persist('user.max_user_namespaces=15000'), fedora: persist('user.max_user_namespaces=15000') },
    };
  }
  if (/uid map|user namespace|new namespace|Operation not permitted|Permission denied/i.test(stderr)) {
    return {
      why: 'the kernel refused the namespaces bwrap asked for: likely a container whose seccomp profile or capabilities forbid user namespaces or mounts',
      fix: { other: 'on the container: docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined (or a seccomp profile that allows clone/unshare of user namespaces); or run the worker on the host' },
    };
  }
  return { why: 'bwrap failed for a reason not recognised here (its output is above)', fix: { other: 'run the command above by hand to see more' } };
}
