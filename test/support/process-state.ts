import { readdirSync, readFileSync } from 'node:fs';

/** Alive: neither gone nor a zombie waiting for a reaper that this container may not have. */
export function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * A process started as `exec -a <marker> ...` is still alive: commands run in their own PID
 * namespace, so the pid they see of themselves means nothing outside; their argv[0] does.
 */
export function isMarkedRunning(marker: string): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0];
      if (argv0 === marker && isRunning(Number(entry))) return true;
    } catch {
      // the process ended while we looked
    }
  }
  return false;
}
