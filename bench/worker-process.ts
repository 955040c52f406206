/** `npm run worker` in a process of its own (`node --import tsx src/worker.ts`): its RSS and its start-up time. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One thread's heap after a full GC, as bench/heap-probe.cjs writes it. */
export interface ThreadHeap {
  threadId: number;
  heapUsed: number;
  /** What the heap holds from the OS (V8's total_heap_size), live or not. */
  heapCommitted: number;
  heapLimit: number;
  external: number;
  /** Live bytes per V8 heap space (old_space, code_space, ...). */
  spaces: Record<string, number>;
}

/** The heaps of the worker's threads: the main one (activities, the SDK's bridge) and the workflow thread(s). */
export interface HeapFigures {
  threads: ThreadHeap[];
  /** Summed over the threads. */
  heapUsed: number;
  heapCommitted: number;
  external: number;
  spaces: Record<string, number>;
}

const ROOT = path.resolve(__dirname, '..');

export interface WorkerProcess {
  child: ChildProcess;
  /** ms from spawn to "Worker polling" on stderr. */
  startupMs: number;
  /** VmRSS and VmHWM (peak) in bytes. */
  memory(): { rss: number; peak: number };
  /** With `heapProbe`: a full GC in each of the worker's threads, then their heap figures (bench/heap-probe.cjs). */
  heap(): Promise<HeapFigures>;
  stop(): Promise<void>;
}

export interface WorkerEnv {
  address: string;
  taskQueue: string;
  modelUrl: string;
  bundlePath?: string;
  /** More environment for the worker (e.g. BAREAGENT_MAX_CACHED_WORKFLOWS). */
  extraEnv?: Record<string, string>;
  /** Load bench/heap-probe.cjs into the worker's threads (`--expose-gc`), for `heap()`. */
  heapProbe?: boolean;
  /** More `node` flags for the worker (e.g. `--max-old-space-size=512`). */
  nodeFlags?: string[];
}

export async function spawnWorker(env: WorkerEnv, timeoutMs = 120_000): Promise<WorkerProcess> {
  const started = performance.now();
  const probeDir = env.heapProbe ? mkdtempSync(path.join(os.tmpdir(), 'bareagent-heap-probe-')) : undefined;
  const probeFile = probeDir ? path.join(probeDir, 'heap.json') : undefined;
  const probeArgs = probeFile ? ['--expose-gc', '--require', path.join(ROOT, 'bench/heap-probe.cjs')] : [];
  const child = spawn(process.execPath, ['--import', 'tsx', ...(env.nodeFlags ?? []), ...probeArgs, path.join(ROOT, 'src/worker.ts')], {
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
      ...(probeFile ? { BENCH_HEAP_PROBE: probeFile } : {}),
      ...env.extraEnv,
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
    if (probeDir && !process.env.BENCH_KEEP_PROBE) rmSync(probeDir, { recursive: true, force: true });
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
    heap: async () => {
      if (!probeDir) throw new Error('spawnWorker: heap() needs heapProbe: true');
      const answers = () => readdirSync(probeDir).filter((name) => /^heap\.json\.\d+$/.test(name));
      for (const name of answers()) rmSync(path.join(probeDir, name));
      writeFileSync(`${probeFile}.request`, '');
      // Each thread answers after its own full GC; the answers are in once two threads (main and
      // workflow) have written theirs and no other one came for a second.
      let seen = 0;
      for (let quiet = 0, deadline = Date.now() + 120_000; seen < 2 || quiet < 1000; quiet += 100) {
        if (Date.now() > deadline) throw new Error(`only ${seen} thread(s) of the worker answered the heap probe within 120 s`);
        await new Promise((r) => setTimeout(r, 100));
        const now = answers().length;
        if (now !== seen) [seen, quiet] = [now, 0];
      }
      const threads = answers().map((name) => JSON.parse(readFileSync(path.join(probeDir, name), 'utf8')) as ThreadHeap);
      const spaces: Record<string, number> = {};
      for (const t of threads) for (const [space, used] of Object.entries(t.spaces)) spaces[space] = (spaces[space] ?? 0) + used;
      return {
        threads,
        heapUsed: threads.reduce((a, t) => a + t.heapUsed, 0),
        heapCommitted: threads.reduce((a, t) => a + t.heapCommitted, 0),
        external: threads.reduce((a, t) => a + t.external, 0),
        spaces,
      };
    },
    stop,
  };
}
