/** Many scripted runs at once: iterations per second and iteration latency under load. */
import type { AgentRunInput } from '../src/common/input';
import { forgetRequests, latenciesOf, runScripted, type ScriptedRun } from './agent-runs';
import type { ScriptedCall, Workspace } from './conversation';
import type { BenchContext } from './context';
import type { BenchServer } from './setup';
import { NoiseMeter, processCpuSeconds } from './noise';
import { summarize } from './stats';

export interface LoadResult {
  concurrency: number;
  runs: number;
  /** Model turns completed per second of wall time (each run: N tool turns + the final answer). */
  iterationsPerSecond: number;
  wallMs: number;
  p50: number;
  p95: number;
  /** CPU ms per iteration: this process (worker unless `workerPid`, scripted model, client), the dev server, a worker process. */
  cpuPerIteration: { bench: number; server: number; worker?: number };
  /** Share of the machine's CPU that other processes used meanwhile (0..1): how far to trust this row. */
  others: number;
}

export async function concurrentRuns(
  ctx: BenchContext,
  server: BenchServer,
  taskQueue: string,
  spec: { concurrency: number; iterations: number; workspace: Workspace | readonly Workspace[]; input?: Partial<AgentRunInput>; workerPid?: number; call?: ScriptedCall },
): Promise<LoadResult> {
  const meter = new NoiseMeter();
  const started = performance.now();
  const cpuBefore = { bench: process.cpuUsage(), server: processCpuSeconds(server.pid), worker: processCpuSeconds(spec.workerPid) };
  const runs: ScriptedRun[] = await Promise.all(
    Array.from({ length: spec.concurrency }, (_, i) =>
      runScripted(server, ctx.model, {
        iterations: spec.iterations,
        // One workspace shared by every run, or one each.
        workspace: 'dir' in spec.workspace ? spec.workspace : spec.workspace[i % spec.workspace.length]!,
        taskQueue,
        prefix: `load${spec.concurrency}`,
        ...(spec.input ? { input: spec.input } : {}),
        ...(spec.call ? { call: spec.call } : {}),
      }),
    ),
  );
  const wallMs = performance.now() - started;
  const others = meter.stop().others;
  const benchCpu = process.cpuUsage(cpuBefore.bench);
  const serverCpu = processCpuSeconds(server.pid) - cpuBefore.server;
  const workerCpu = processCpuSeconds(spec.workerPid) - cpuBefore.worker;
  forgetRequests(ctx.model);
  const latency = summarize(latenciesOf(runs));
  const iterations = runs.length * (spec.iterations + 1);
  return {
    concurrency: spec.concurrency,
    runs: runs.length,
    iterationsPerSecond: iterations / (wallMs / 1000),
    wallMs,
    p50: latency.p50,
    p95: latency.p95,
    cpuPerIteration: {
      bench: (benchCpu.user + benchCpu.system) / 1000 / iterations,
      server: (serverCpu * 1000) / iterations,
      ...(spec.workerPid ? { worker: (workerCpu * 1000) / iterations } : {}),
    },
    others,
  };
}

export interface ProfileResult {
  latencies: number[];
  /** p50 of iterations 1–10 and of the second half of the run. */
  early: number;
  late: number;
  p50: number;
  p95: number;
}

/** One run on its own: its iteration latencies, early and late (a plateau shows as late ≫ early). */
export async function latencyProfile(
  ctx: BenchContext,
  server: BenchServer,
  taskQueue: string,
  spec: { iterations: number; workspace: Workspace; input?: Partial<AgentRunInput> },
): Promise<ProfileResult> {
  const run = await runScripted(server, ctx.model, { iterations: spec.iterations, workspace: spec.workspace, taskQueue, prefix: 'profile', input: { stream: false, ...spec.input } });
  forgetRequests(ctx.model);
  const latencies = latenciesOf([run]);
  return {
    latencies,
    early: summarize(latencies.slice(0, 10)).p50,
    late: summarize(latencies.slice(Math.floor(latencies.length / 2))).p50,
    p50: summarize(latencies).p50,
    p95: summarize(latencies).p95,
  };
}
