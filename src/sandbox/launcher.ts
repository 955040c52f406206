import type { SandboxLimits } from './sandbox-config';

/**
 * The host-side wrapper bwrap is started through: it joins the pids cgroup (its own pid, before
 * exec, so every later process is born inside) and sets the rlimits, which bwrap and everything
 * in the sandbox inherit. A limit is only lowered, never raised above what the worker has.
 * Exit 125 with a message when the cgroup cannot be joined: the command must not run unlimited.
 * With a seccomp program (printf escapes), it is piped to bwrap on SECCOMP_FD: bwrap reads it to
 * the end and closes it, so no file is kept for it and nothing of it reaches the command.
 */
export const SECCOMP_FD = 9;

const SCRIPT = [
  'lim() { cur=$(ulimit -H "$1"); if [ "$cur" = unlimited ] || [ "$cur" -gt "$2" ]; then ulimit "$1" "$2" || exit 125; fi; }',
  'if [ -n "$1" ]; then echo $$ > "$1" || { echo "sandbox: cannot join the pids cgroup $1" >&2; exit 125; }; fi',
  'lim -c 0; lim -v "$2"; lim -f "$3"; lim -u "$4"',
  `if [ -n "$5" ]; then exec ${SECCOMP_FD}< <(printf "$5") || { echo "sandbox: cannot pipe the seccomp filter" >&2; exit 125; }; fi`,
  'shift 5',
  'exec "$@"',
].join('\n');

/** argv for `/bin/bash` (bash, not sh: `ulimit -v/-u` and KiB units are bash's). */
export function launcherArgs(limits: SandboxLimits, procsFile: string | undefined, command: readonly string[], seccompEscaped = ''): string[] {
  return [
    '-c',
    SCRIPT,
    'bareagent-sandbox',
    procsFile ?? '',
    String(limits.maxMemoryMb * 1024),
    String(limits.maxFileMb * 1024),
    String(limits.maxProcesses),
    seccompEscaped,
    ...command,
  ];
}
