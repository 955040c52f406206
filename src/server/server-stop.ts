import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

export type StopOutcome =
  | { kind: 'stopped'; pid: number; forced: boolean }
  | { kind: 'none'; pidFile: string }
  | { kind: 'stale'; pid: number; pidFile: string; why: string };

/** How long SIGTERM gets before SIGKILL: the dev server checkpoints its SQLite file on the way out. */
export const STOP_GRACE_MS = 10_000;

/**
 * Stops the Temporal dev server a `run`, `demo` or `eval` left running in the background: the pid
 * it recorded in `<home>/server.pid`, and only when that pid is still that server (its command
 * line is `temporal server start-dev` with this home's database): a pid the system gave to
 * another process since is never signalled. Never by name.
 */
export async function stopRecordedServer(home: string, graceMs = STOP_GRACE_MS): Promise<StopOutcome> {
  const pidFile = path.join(home, 'server.pid');
  let raw: string;
  try {
    raw = readFileSync(pidFile, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none', pidFile };
    throw err;
  }
  const pid = Number(raw);
  const forget = () => rmSync(pidFile, { force: true });
  if (!/^\d+$/.test(raw) || pid <= 1) {
    forget();
    return { kind: 'stale', pid, pidFile, why: `it holds "${raw.slice(0, 40)}", not a process id` };
  }
  const why = notOurServer(pid, home);
  if (why) {
    forget();
    return { kind: 'stale', pid, pidFile, why };
  }
  process.kill(pid, 'SIGTERM');
  let forced = false;
  const deadline = Date.now() + graceMs;
  while (alive(pid)) {
    if (Date.now() > deadline && !forced) {
      process.kill(pid, 'SIGKILL');
      forced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  forget();
  return { kind: 'stopped', pid, forced };
}

/** Why `pid` is not the dev server this home started (gone, or another program), or undefined when it is. */
function notOurServer(pid: number, home: string): string | undefined {
  let cmdline: string[];
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return alive(pid) ? 'its command line cannot be read' : 'no such process is running';
  }
  const database = path.join(home, 'temporal.sqlite');
  const isServer = cmdline.includes('server') && cmdline.includes('start-dev');
  const ours = cmdline.includes(database);
  if (!isServer || !ours) return `it is not the Temporal dev server of ${home} (${cmdline.slice(0, 3).join(' ').slice(0, 80) || 'no command line'})`;
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie (exited, not yet reaped by its parent) answers signal 0 too.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
