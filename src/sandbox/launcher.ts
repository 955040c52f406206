import type { SandboxLimits } from './sandbox-config';

/**
 * The host-side wrapper bwrap is started through: it joins the pids cgroup (its own pid, before
 * exec, so every later process is born inside) and sets the rlimits, which bwrap and everything
 * in the sandbox inherit. A limit is only lowered, never raised above what the worker has.
 * Exit 125 with a message when the cgroup cannot be joined: the command must not run unlimited.
 */
const SCRIPT = [
  'lim() { cur=$(ulimit -H "$1"); if [ "$cur" = unlimited ] || [ "$cur" -gt "$2" ]; then ulimit "$1" "$2" || exit 125; fi; }',
  'if [ -n "$1" ]; then echo $$ > "$1" || { echo "sandbox: cannot join the pids cgroup $1" >&2; exit 125; }; fi',
  'lim -c 0; lim -v "$2"; lim -f "$3"; lim -u "$4"',
  'shift 4',
  'exec "$@"',
].join('\n');

/** argv for `/bin/bash` (bash, not sh: `ulimit -v/-u` and KiB units are bash's). */
export function launcherArgs(limits: SandboxLimits, procsFile: string | undefined, command: readonly string[]): string[] {
  return [
    '-c',
    SCRIPT,
    'bareagent-sandbox',
    procsFile ?? '',
    String(limits.maxMemoryMb * 1024),
    String(limits.maxFileMb * 1024),
    String(limits.maxProcesses),
    ...command,
  ];
}
