/** `npm run worker` in a process of its own (`node --import tsx src/worker.ts`): its RSS and its start-up time. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

export interface WorkerProcess {
  child: ChildProcess;
  /** ms from spawn to "Worker polling" on stderr. */
  startupMs: number;
  /** VmRSS and VmHWM (peak) in bytes. */
  memory(): { rss: number; peak: number };
  stop(): Promise<void>;
}

export async function spawnWorker(env: { address: string; taskQueue: string; modelUrl: string; bundlePath?: string }, timeoutMs = 120_000): Promise<WorkerProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: 'default',
      BAREAGENT_TASK_QUEUE: env.taskQueue,
      OPENAI_BASE_URL: env.modelUrl,
      OPENAI_API_KEY: 'sk-bench-unused',
      BAREAGENT_ENCRYPTION_KEY: '',
      BAREAGENT_WORKFLOW_BUNDLE: env.bundlePath ?? '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
  };
  for (const deadline = Date.now() + timeoutMs; !output.includes('Worker polling'); ) {
    if (child.exitCode !== null) throw new Error(`the worker exited early:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the worker did not start within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const startupMs = performance.now() - started;
  return {
    child,
    startupMs,
    memory: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
      return { rss: kb('VmRSS'), peak: kb('VmHWM') };
    },
    stop,
  };
}
