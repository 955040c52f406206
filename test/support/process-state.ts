import { readFileSync } from 'node:fs';

/** Alive: neither gone nor a zombie waiting for a reaper that this container may not have. */
export function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
