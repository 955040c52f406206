/** 2. Throughput: 1, 10, 50 and 100 concurrent runs on one worker, iterations per second and p95. */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { BenchContext } from './context';
import { makeWorkspace, writeCall } from './conversation';
import { concurrentRuns, type LoadResult } from './load';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import { spawnWorker } from './worker-process';
import { ms, summarize } from './stats';

export const THROUGHPUT_TARGET = { concurrency: 50, iterationsPerSecond: 100 };

export async function throughput(ctx: BenchContext): Promise<Block> {
  const { concurrency, runIterations } = ctx.options;
  const meter = new NoiseMeter();
  const server = await ctx.defaultServer();
  const worker = await ctx.worker(server, 'bench-throughput');
  const workspace = makeWorkspace(runIterations, 200);
  const results: LoadResult[] = [];
  let separate: LoadResult | undefined;
  let unstreamed: LoadResult | undefined;
  let uncheckpointed: LoadResult | undefined;
  const writing: { on: LoadResult[]; off: LoadResult[] } = { on: [], off: [] };
  const separateAt = concurrency.includes(THROUGHPUT_TARGET.concurrency) ? THROUGHPUT_TARGET.concurrency : Math.max(...concurrency);
  try {
    await concurrentRuns(ctx, server, worker.taskQueue, { concurrency: 2, iterations: 3, workspace }); // warm-up
    for (const c of concurrency) {
      ctx.log(`throughput: ${c} concurrent runs of ${runIterations} iterations`);
      results.push(await concurrentRuns(ctx, server, worker.taskQueue, { concurrency: c, iterations: runIterations, workspace }));
    }
    // Read-only runs take no checkpoint (step 0 waits for a round that may write): on and off do the same work.
    ctx.log(`throughput: ${separateAt} concurrent runs with checkpoints: false`);
    uncheckpointed = await concurrentRuns(ctx, server, worker.taskQueue, { concurrency: separateAt, iterations: runIterations, workspace, input: { checkpoints: false } });
    // What checkpoints cost when every iteration writes: each run in a workspace of its own (new
    // to the store each batch), on and off interleaved (on, off, off, on): this machine's drift
    // over a minute is as large as the difference measured.
    for (const checkpoints of [true, false, false, true]) {
      const apart = Array.from({ length: separateAt }, () => makeWorkspace(runIterations, 200));
      try {
        ctx.log(`throughput: ${separateAt} concurrent writing runs, checkpoints ${checkpoints ? 'on' : 'off'}`);
        writing[checkpoints ? 'on' : 'off'].push(await concurrentRuns(ctx, server, worker.taskQueue, { concurrency: separateAt, iterations: runIterations, workspace: apart, call: writeCall, input: { checkpoints, permissionMode: 'auto', stream: false } }));
      } finally {
        for (const w of apart) w.dispose();
      }
    }
    // Streaming costs a signal (and often one more workflow task) per model call: the same load without it.
    ctx.log(`throughput: ${separateAt} concurrent runs with stream: false`);
    unstreamed = await concurrentRuns(ctx, server, worker.taskQueue, { concurrency: separateAt, iterations: runIterations, workspace, input: { stream: false } });
    await worker.stop();
    // The same load with the worker in its own process: the CPU of worker, server and scripted model apart.
    const taskQueue = `bench-throughput-process-${randomUUID().slice(0, 8)}`;
    const own = await spawnWorker({ address: server.address, taskQueue, modelUrl: ctx.model.url, bundlePath: ctx.bundle.codePath });
    try {
      ctx.log(`throughput: ${separateAt} concurrent runs, worker in its own process`);
      await concurrentRuns(ctx, server, taskQueue, { concurrency: 2, iterations: 3, workspace });
      separate = await concurrentRuns(ctx, server, taskQueue, { concurrency: separateAt, iterations: runIterations, workspace, ...(own.child.pid ? { workerPid: own.child.pid } : {}) });
    } finally {
      await own.stop();
    }
  } finally {
    await worker.stop();
    workspace.dispose();
  }
  const noise = meter.stop();
  return {
    id: 'throughput',
    markdown: [
      '## 2. Throughput',
      '',
      stamp(ctx.command),
      '',
      `One worker (default options, prebuilt bundle) in the bench's process; each run ${runIterations} \`read_file\` iterations and a final answer, all runs started at once. ` +
        'Iterations per second count every model turn over the wall time from the first start to the last result.',
      '',
      table(
        ['concurrent runs', 'iterations/s', 'iteration p50', 'iteration p95', 'wall', 'CPU per iteration: bench process', 'CPU per iteration: dev server', "other processes' CPU meanwhile"],
        results.map((r) => [
          r.concurrency,
          r.iterationsPerSecond.toFixed(1),
          ms(r.p50),
          ms(r.p95),
          ms(r.wallMs, 0),
          ms(r.cpuPerIteration.bench),
          ms(r.cpuPerIteration.server),
          `${Math.round(r.others * 100)}%`,
        ]),
      ),
      '',
      targetLine(results),
      '',
      ...(uncheckpointed ? [checkpointsLine(results, uncheckpointed), ''] : []),
      ...(writing.on.length > 0 && writing.on.length === writing.off.length ? [writingLine(writing.on, writing.off, runIterations), ''] : []),
      ...(unstreamed
        ? [
            `The same ${unstreamed.concurrency} runs with \`stream: false\` (no signal from the model-call activity to the run's stream): ` +
              `${unstreamed.iterationsPerSecond.toFixed(1)} iterations/s, p95 ${ms(unstreamed.p95)}, CPU per iteration ${ms(unstreamed.cpuPerIteration.bench)} + ${ms(unstreamed.cpuPerIteration.server)} (bench process + dev server).`,
            '',
          ]
        : []),
      ...(separate
        ? [
            `The same ${separate.concurrency} runs with the worker in its own process (\`node --import tsx src/worker.ts\`): ${separate.iterationsPerSecond.toFixed(1)} iterations/s, p95 ${ms(separate.p95)}; ` +
              `CPU per iteration: worker ${ms(separate.cpuPerIteration.worker ?? NaN)}, dev server ${ms(separate.cpuPerIteration.server)}, scripted model and client ${ms(separate.cpuPerIteration.bench)}.`,
            '',
          ]
        : []),
      'CPU per iteration: CPU time used during the level divided by the iterations. "Bench process" is the worker (workflow thread, activities, the SDK core) together with the scripted model and the client; ' +
        `at ${THROUGHPUT_TARGET.iterationsPerSecond} iterations/s the two together may not exceed ${((os.cpus().length * 1000) / THROUGHPUT_TARGET.iterationsPerSecond).toFixed(0)} ms on ${os.cpus().length} otherwise idle cores.`,
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}

/** Checkpoints on (the default) against off at the same concurrency, interleaved in one bench run. */
function checkpointsLine(results: LoadResult[], off: LoadResult): string {
  const on = results.find((r) => r.concurrency === off.concurrency);
  const ratio = on ? ` (on ÷ off **${(on.iterationsPerSecond / off.iterationsPerSecond).toFixed(2)}**)` : '';
  return (
    `The same ${off.concurrency} runs with \`checkpoints: false\`: ${off.iterationsPerSecond.toFixed(1)} iterations/s, p95 ${ms(off.p95)}${ratio}. ` +
    'With checkpoints on, these runs take none: their iterations only read, and step 0 is taken before the first round that may write.'
  );
}

/** Runs whose every iteration writes a file, each in its own workspace: checkpoints on against off, interleaved. */
function writingLine(on: LoadResult[], off: LoadResult[], files: number): string {
  const rate = (rows: LoadResult[]) => rows.map((r) => r.iterationsPerSecond.toFixed(1)).join(', ');
  const total = (rows: LoadResult[]) => rows.reduce((sum, r) => sum + r.iterationsPerSecond, 0);
  const cpu = (rows: LoadResult[]) => summarize(rows.map((r) => r.cpuPerIteration.bench)).mean;
  return (
    `${on[0]!.concurrency} runs whose every iteration is a \`write_file\`, each in a workspace of its own (${files} files, new to the store), in the order on, off, off, on: ` +
    `checkpoints on ${rate(on)} iterations/s, off ${rate(off)}: on ÷ off **${(total(on) / total(off)).toFixed(2)}** (CPU per iteration of the bench process ${ms(cpu(on))} on, ${ms(cpu(off))} off). ` +
    'On, each run takes step 0 before its first write (a scan of a workspace the store has not seen, in a store made for it) and one checkpoint inside every write_file activity.'
  );
}

export function targetLine(results: LoadResult[]): string {
  const at = results.find((r) => r.concurrency === THROUGHPUT_TARGET.concurrency);
  const target = `**Target: ≥ ${THROUGHPUT_TARGET.iterationsPerSecond} iterations/s across ${THROUGHPUT_TARGET.concurrency} concurrent runs.**`;
  if (!at) return `${target} Not measured in this run (no level of ${THROUGHPUT_TARGET.concurrency}).`;
  const value = at.iterationsPerSecond;
  return value >= THROUGHPUT_TARGET.iterationsPerSecond
    ? `${target} Reached: ${value.toFixed(1)} iterations/s.`
    : `${target} Missed by ${(THROUGHPUT_TARGET.iterationsPerSecond - value).toFixed(1)} iterations/s (${value.toFixed(1)}, ${((value / THROUGHPUT_TARGET.iterationsPerSecond) * 100).toFixed(0)}% of the target).`;
}
