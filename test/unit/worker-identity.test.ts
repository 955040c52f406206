import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { workerExited, workerIdentity } from '../../src/connection/worker-identity';

/** The pid of a process that has exited (reaped), as a dead worker's would be. */
function exitedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

test("a worker's identity names this machine's pid space, and only an exited pid of that space is surely gone", () => {
  const own = workerIdentity();
  const space = / \[pids ([\w-]+\/\d+)\]$/.exec(own)?.[1];
  expect(own.startsWith(`${process.pid}@${os.hostname()}`)).toBe(true);
  expect(space).toBeDefined();
  expect(workerIdentity('bareagent-run/').startsWith('bareagent-run/')).toBe(true);

  const dead = exitedPid();
  expect(workerExited(`${dead}@${os.hostname()} [pids ${space}]`, { sure: true })).toBe(true);
  expect(workerExited(`bareagent-run/${dead}@${os.hostname()} [pids ${space}]`, { sure: true })).toBe(true);
  // Another pid namespace or boot (a container with the same hostname, another machine): never sure.
  expect(workerExited(`${dead}@${os.hostname()} [pids 00000000/1]`, { sure: true })).toBe(false);
  expect(workerExited(`${dead}@${os.hostname()} [pids 00000000/1]`, { sure: false })).toBe(false);
  // The SDK's plain pid@host: a hint, never enough to act on.
  expect(workerExited(`${dead}@${os.hostname()}`, { sure: true })).toBe(false);
  expect(workerExited(`${dead}@${os.hostname()}`, { sure: false })).toBe(true);
  // Alive, this process, another host, or not an identity at all.
  expect(workerExited(`${process.ppid}@${os.hostname()} [pids ${space}]`, { sure: true })).toBe(false);
  expect(workerExited(own, { sure: true })).toBe(false);
  expect(workerExited(`${dead}@another-host [pids ${space}]`, { sure: true })).toBe(false);
  expect(workerExited('my-worker', { sure: true })).toBe(false);
});
