/** CPU time and resident memory of process trees, from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

interface Stat { pid: number; ppid: number; cpuMs: number; rss: number }

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is state (field 3): utime is field 14, stime 15, cutime 16, cstime 17, rss 24.
    const n = (field: number) => Number(fields[field - 3]);
    return { pid, ppid: n(4), cpuMs: (n(14) + n(15) + n(16) + n(17)) * TICK_MS, rss: n(24) * 4096 };
  } catch {
    return undefined;
  }
}

function allStats(): Stat[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((d) => stat(Number(d))).filter((s): s is Stat => !!s);
}

/** The processes of each root and all their descendants. */
export function tree(roots: readonly number[]): Stat[] {
  const stats = allStats();
  const inTree = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of stats) if (!inTree.has(s.pid) && inTree.has(s.ppid)) { inTree.add(s.pid); grew = true; }
  }
  return stats.filter((s) => inTree.has(s.pid));
}

/** CPU ms used so far by the trees (live processes and the reaped children they waited for). */
export const treeCpuMs = (roots: readonly number[]): number => tree(roots).reduce((sum, s) => sum + s.cpuMs, 0);
export const treeRss = (roots: readonly number[]): number => tree(roots).reduce((sum, s) => sum + s.rss, 0);

export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
