import { spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Starts a program that outlives this process; its output goes to `logFile`, its pid to `pidFile`. */
export function startDaemon(file: string, args: string[], env: NodeJS.ProcessEnv, logFile: string, pidFile: string): number {
  const out = openSync(logFile, 'a');
  const child = spawn(file, args, { env, detached: true, stdio: ['ignore', out, out] });
  child.unref();
  if (!child.pid) throw new Error(`could not start ${file}`);
  writeFileSync(pidFile, String(child.pid));
  return child.pid;
}

export function daemonPid(pidFile: string): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  return pid && alive(pid) ? pid : undefined;
}

/** SIGTERM, then SIGKILL after `graceMs` (as `docker compose stop` does with stop_grace_period). */
export async function stopDaemon(pidFile: string, graceMs: number): Promise<boolean> {
  const pid = daemonPid(pidFile);
  rmSync(pidFile, { force: true });
  if (!pid) return false;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  process.kill(pid, 'SIGKILL');
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
  return true;
}

/** A zombie (exited, not yet reaped by the process that started it, e.g. a test run) counts as gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc: trust the signal
  }
}
