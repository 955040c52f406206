import { spawn } from 'node:child_process';
import path from 'node:path';
import { Harness } from './harness';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut?: boolean;
}

const ROOT = path.resolve(__dirname, '../..');

/**
 * Runs `bareagent <args>` as a user would, without a terminal; resolves when it exits. With
 * `timeoutMs`, a command still running then is killed and resolves with `timedOut`.
 */
export function runCli(args: string[], env: Record<string, string>, onStdout?: (text: string) => void, timeoutMs?: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      onStdout?.(stdout);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let timedOut = false;
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ...(timedOut ? { timedOut } : {}) });
    });
  });
}

/** The environment that points `bareagent` at a harness: its server, its task queue, its UI port. */
export function cliEnv(h: { env: { address: string; uiPort: number }; taskQueue: string }): Record<string, string> {
  return { TEMPORAL_ADDRESS: h.env.address, BAREAGENT_TASK_QUEUE: h.taskQueue, BAREAGENT_UI_PORT: String(h.env.uiPort) };
}

/** A CLI test file's world: the harness with one worker, and the environment that points `bareagent` at it. */
export async function cliHarness(extraEnv: Record<string, string> = {}): Promise<{ h: Harness; env: Record<string, string> }> {
  const h = await Harness.create();
  await h.startWorker();
  return { h, env: { ...cliEnv(h), ...extraEnv } };
}
