import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A cgroup per command with `pids.max` set: the process limit that holds when the worker runs as
 * root, where RLIMIT_NPROC does not bind (the kernel exempts uid 0 from it). The command's
 * launcher writes its own pid into `cgroup.procs` before it execs bwrap, so every process of the
 * command is born inside the cgroup: nothing can fork before the limit applies.
 *
 * Found under the worker's own cgroup: cgroup2 (/sys/fs/cgroup, or /sys/fs/cgroup/unified in
 * hybrid mode) when it offers the pids controller, else cgroup v1's pids hierarchy. Where neither
 * is writable (an unprivileged worker without a delegated cgroup), no cgroup is made and the
 * process limit is RLIMIT_NPROC alone, which binds every uid but root.
 */
export interface PidsCgroup {
  dir: string;
  procsFile: string;
  /** Kills what is left in the cgroup, then keeps it for the next command (or removes it). */
  remove(): Promise<void>;
}

let base: string | null | undefined;
let counter = 0;

/**
 * Emptied cgroups wait here for the next command: the first process to join a freshly made
 * cgroup waits ~10 ms for the kernel (measured: 25.7 ms a command with a new cgroup each time
 * against 14.6 ms without one), joining one that has been used before costs well under 1 ms.
 */
const idle: string[] = [];
const MAX_IDLE = 8;

export function createPidsCgroup(maxProcesses: number): PidsCgroup | undefined {
  if (base === undefined) {
    base = findBase();
    if (base) removeStale(base);
  }
  if (!base) return undefined;
  const reused = idle.pop();
  const dir = reused ?? path.join(base, `bareagent-${process.pid}-${++counter}`);
  try {
    if (!reused) mkdirSync(dir);
    writeFileSync(path.join(dir, 'pids.max'), String(maxProcesses));
  } catch {
    tryRemove(dir);
    return undefined;
  }
  return { dir, procsFile: path.join(dir, 'cgroup.procs'), remove: () => releaseCgroup(dir) };
}

async function releaseCgroup(dir: string): Promise<void> {
  if (idle.length < MAX_IDLE && (await emptied(dir))) idle.push(dir);
  else await removeCgroup(dir);
}

/** Kills what is left until the cgroup holds no process (false when it will not empty: it is not reused). */
async function emptied(dir: string): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    killAll(dir);
    try {
      if (readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').trim() === '') return true;
    } catch {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** Whether commands get a pids cgroup on this worker (for the start-up log). */
export function pidsCgroupBase(): string | undefined {
  base ??= findBase();
  return base ?? undefined;
}

function findBase(): string | null {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return null;
  }
  const candidates: string[] = [];
  const v2 = lines.find((l) => l.startsWith('0::'))?.slice(3);
  if (v2 !== undefined) {
    for (const mount of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
      if (existsSync(path.join(mount, 'cgroup.controllers'))) {
        candidates.push(path.join(mount, v2));
        enablePids(path.join(mount, v2));
      }
    }
  }
  const v1 = lines.map((l) => /^\d+:([^:]*):(.*)$/.exec(l)).find((m) => m?.[1]?.split(',').includes('pids'));
  if (v1?.[2] !== undefined) candidates.push(path.join('/sys/fs/cgroup/pids', v1[2]));
  return candidates.find(works) ?? null;
}

/**
 * cgroup2 gives a child the pids controller only when its parent lists it in subtree_control.
 * Allowed in a delegated or namespaced root cgroup; refused (EBUSY) in a cgroup that holds
 * processes of its own, such as a plain systemd service: then the v1 hierarchy or rlimits remain.
 */
function enablePids(dir: string): void {
  try {
    if (!readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) {
      writeFileSync(path.join(dir, 'cgroup.subtree_control'), '+pids');
    }
  } catch {
    // not ours to change
  }
}

/** Tried for real: a throwaway child cgroup with a pids.max that can be written. */
function works(dir: string): boolean {
  const probe = path.join(dir, `bareagent-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    writeFileSync(path.join(probe, 'pids.max'), '1');
    return true;
  } catch {
    return false;
  } finally {
    tryRemove(probe);
  }
}

/** Cgroups left by a worker that died before it removed them (the name holds its pid): empty ones go. */
function removeStale(dir: string): void {
  try {
    for (const name of readdirSync(dir)) {
      const pid = /^bareagent-(\d+)-\d+$/.exec(name)?.[1];
      if (pid && Number(pid) !== process.pid && !alive(Number(pid))) tryRemove(path.join(dir, name));
    }
  } catch {
    // best effort
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function removeCgroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    killAll(dir);
    if (tryRemove(dir)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function killAll(dir: string): void {
  try {
    if (existsSync(path.join(dir, 'cgroup.kill'))) writeFileSync(path.join(dir, 'cgroup.kill'), '1');
    for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  } catch {
    // the cgroup is already gone
  }
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
