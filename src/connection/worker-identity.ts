/**
 * A worker's identity as the server lists it (a task queue's pollers, an activity's last worker):
 * the SDK's `pid@host`, then where that pid means one process, this boot of this machine and this
 * pid namespace (`12345@box [pids 57b94f43/4026531836]`). The hostname alone does not say it:
 * containers share one, and two machines may. With the pid space named, a process of the same
 * space can tell for sure that a worker it names has exited, and fail the activity attempts the
 * dead worker held at once (src/worker/orphaned-attempts.ts) instead of waiting out their timeouts.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';

const IDENTITY = /^(?<prefix>[\w-]+\/)?(?<pid>\d+)@(?<host>\S+)(?: \[pids (?<space>[\w-]+\/\d+)\])?$/;

let cachedSpace: string | null | undefined;

/** This boot of this machine and this process's pid namespace, or null where /proc does not say (not Linux). */
function pidSpace(): string | null {
  if (cachedSpace !== undefined) return cachedSpace;
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().slice(0, 8);
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    cachedSpace = boot && namespace ? `${boot}/${namespace}` : null;
  } catch {
    cachedSpace = null;
  }
  return cachedSpace;
}

/** This process's worker identity; `prefix` (ending in `/`) marks a kind of worker, e.g. the CLI's in-process one. */
export function workerIdentity(prefix = ''): string {
  const space = pidSpace();
  return `${prefix}${process.pid}@${os.hostname()}${space ? ` [pids ${space}]` : ''}`;
}

/**
 * Whether the worker an identity names has exited. `sure`: only when the identity names this
 * pid space (so the pid is one this process can look up), for acting on it; otherwise the
 * SDK's plain `pid@host` of this host is taken at its word, for a hint. False in any doubt,
 * and for this process itself.
 */
export function workerExited(identity: string, options: { sure: boolean }): boolean {
  const parsed = IDENTITY.exec(identity)?.groups;
  if (!parsed || parsed.host !== os.hostname()) return false;
  if (parsed.space !== undefined ? parsed.space !== pidSpace() : options.sure) return false;
  const pid = Number(parsed.pid);
  if (pid === process.pid || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
