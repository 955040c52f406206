import { spawnSync } from 'node:child_process';
import { noSetidFilter } from './seccomp-no-setid';

export interface SandboxProbe {
  ok: boolean;
  /** bwrap's version when it works, else why it does not (its stderr, or the spawn error). */
  detail: string;
}

const probes = new Map<string, SandboxProbe>();

/**
 * Whether bubblewrap can start here, tried once per binary: the same namespaces commands get,
 * around `true`. Fails on a missing binary, on user namespaces switched off
 * (kernel.unprivileged_userns_clone=0, an AppArmor userns restriction) or on a container that
 * forbids mounts. The no-setid seccomp filter goes in too (on stdin), so a kernel or bwrap that
 * refuses it fails here with bwrap's reason rather than at every command.
 */
export function probeBwrap(bwrap: string): SandboxProbe {
  let probe = probes.get(bwrap);
  if (!probe) {
    probe = runProbe(bwrap);
    probes.set(bwrap, probe);
  }
  return probe;
}

export function resetBwrapProbes(): void {
  probes.clear();
}

function runProbe(bwrap: string): SandboxProbe {
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };
  const filter = noSetidFilter();
  const seccomp = filter ? ['--seccomp', '0'] : [];
  const args = [...seccomp, '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--', 'true'];
  const result = spawnSync(bwrap, args, { env, encoding: 'utf8', timeout: 10_000, ...(filter ? { input: filter } : {}) });
  // A bwrap that fails before reading its filter closes stdin: its exit status and stderr say why.
  const unread = (result.error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE' && result.status !== null;
  if (result.error && !unread) return { ok: false, detail: `${bwrap}: ${result.error.message}` };
  if (result.status !== 0) return { ok: false, detail: `${bwrap} exited with ${result.status ?? result.signal}: ${result.stderr.trim() || '(no output)'}` };
  const version = spawnSync(bwrap, ['--version'], { env, encoding: 'utf8', timeout: 10_000 });
  return { ok: true, detail: (version.stdout ?? '').trim() || bwrap };
}

/** The error every command gets while the sandbox cannot start: what failed, and the three ways out. */
export function unavailableMessage(probe: SandboxProbe): string {
  return [
    `The command sandbox (bubblewrap) cannot start on this worker, so the command was not run: ${probe.detail}.`,
    'Fix it on the worker: install bubblewrap (`apt-get install bubblewrap`, or set BAREAGENT_BWRAP to its path),',
    'and make sure unprivileged user namespaces are enabled (sysctl kernel.unprivileged_userns_clone=1;',
    'on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap;',
    'in a container, allow user namespaces/mounts in its seccomp profile).',
    'Or set BAREAGENT_SANDBOX=off to run commands unconfined, at the operator\'s risk.',
  ].join(' ');
}
