/**
 * The ~100 ms plateau: one run's iterations go from ~40 ms to 100 ms (200 ms without eager
 * dispatch) after 5–30 iterations. Cause: the history service reads its transfer queue (the
 * tasks that push workflow and activity tasks to matching) at most
 * `history.transferProcessorMaxPollRPS` = 20 times a second per shard, and the dev server has
 * one shard: past a burst, every dispatch through matching waits for the next read (~50 ms).
 * This section measures the options tried against it, each alone, then the fix.
 */
import type { BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { concurrentRuns, latencyProfile, type ProfileResult } from './load';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import type { DynamicConfig, WorkerTuning } from './setup';
import { ms } from './stats';

/** The server's own default: what the dev server ran with before src/server/dev-server.ts raised it. */
export const SERVER_DEFAULT_TRANSFER_POLL = { 'history.transferProcessorMaxPollRPS': 20 };

interface Trial {
  name: string;
  dynamicConfig?: DynamicConfig;
  eager?: boolean;
  tuning?: WorkerTuning;
  /** false: the default server (src/server/dev-server.ts as it is now). */
  before?: boolean;
}

const TRIALS: Trial[] = [
  { name: 'before: transfer queue read ≤ 20/s (the server default)', before: true },
  { name: 'before, eager dispatch off', before: true, eager: false },
  { name: 'before + worker `nonStickyToStickyPollRatio: 1`', before: true, tuning: { nonStickyToStickyPollRatio: 1 } },
  { name: 'before + worker `maxConcurrentWorkflowTaskPolls: 2`', before: true, tuning: { maxConcurrentWorkflowTaskPolls: 2 } },
  {
    name: "before + worker `workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 }`",
    before: true,
    tuning: { workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 } },
  },
  {
    name: "before + worker pollers `{ type: 'autoscaling' }` (workflow and activity)",
    before: true,
    tuning: { workflowTaskPollerBehavior: { type: 'autoscaling' }, activityTaskPollerBehavior: { type: 'autoscaling' } },
  },
  { name: "before + worker `stickyQueueScheduleToStartTimeout: '1s'`", before: true, tuning: { stickyQueueScheduleToStartTimeout: '1s' } },
  { name: 'before + worker `maxCachedWorkflows: 0` (no sticky queue: every task replays)', before: true, tuning: { maxCachedWorkflows: 0 } },
  {
    name: 'before + `matching.numTaskqueueReadPartitions=1`, `matching.numTaskqueueWritePartitions=1`',
    before: true,
    dynamicConfig: { 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 },
  },
  { name: "before + `matching.longPollExpirationInterval=\"10s\"`", before: true, dynamicConfig: { 'matching.longPollExpirationInterval': '10s' } },
  { name: 'after: the dev server as src/server/dev-server.ts starts it (`history.transferProcessorMaxPollRPS` raised)' },
  { name: 'after, eager dispatch off', eager: false },
];

export async function transferPoll(ctx: BenchContext): Promise<Block> {
  const iterations = 50;
  const meter = new NoiseMeter();
  const workspace = makeWorkspace(iterations, 200);
  const before = await ctx.server({ dynamicConfig: SERVER_DEFAULT_TRANSFER_POLL });
  const results: Array<{ trial: Trial; profile: ProfileResult }> = [];
  let load: { before: number; after: number; beforeP95: number; afterP95: number } | undefined;
  try {
    for (const [i, trial] of TRIALS.entries()) {
      const own = trial.dynamicConfig || trial.eager === false;
      const server = own
        ? await ctx.server({ ...(trial.before ? { dynamicConfig: { ...SERVER_DEFAULT_TRANSFER_POLL, ...trial.dynamicConfig } } : {}), ...(trial.eager === false ? { eager: false } : {}) })
        : trial.before
          ? before
          : await ctx.defaultServer();
      const worker = await ctx.worker(server, `bench-plateau-${i}`, trial.tuning);
      try {
        ctx.log(`plateau: ${trial.name}`);
        const profile = await latencyProfile(ctx, server, worker.taskQueue, {
          iterations: trial.tuning?.maxCachedWorkflows === 0 ? 30 : iterations,
          workspace,
        });
        results.push({ trial, profile });
      } finally {
        await worker.stop();
        if (own) await server.stop();
      }
    }
    load = await loadBeforeAfter(ctx, before, workspace);
  } finally {
    await before.stop();
    workspace.dispose();
  }
  const noise = meter.stop();
  return {
    id: 'transfer-poll',
    markdown: [
      '## The 100 ms plateau: `history.transferProcessorMaxPollRPS`',
      '',
      stamp(ctx.command),
      '',
      `One run of ${iterations} iterations (\`stream: false\`, small files) per line, each option alone. "Iterations 1–10" and "second half" are p50s: ` +
        'a plateau shows as a second half far above the start.',
      '',
      table(
        ['configuration', 'iterations 1–10 p50', 'second half p50', 'p95'],
        results.map(({ trial, profile }) => [trial.name, ms(profile.early), ms(profile.late), ms(profile.p95)]),
      ),
      '',
      load
        ? table(
            ['50 concurrent runs', 'iterations/s', 'iteration p95'],
            [
              ['before (≤ 20 reads/s)', load.before.toFixed(1), ms(load.beforeP95)],
              ['after', load.after.toFixed(1), ms(load.afterP95)],
            ],
          )
        : '',
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}

async function loadBeforeAfter(ctx: BenchContext, before: Awaited<ReturnType<BenchContext['server']>>, workspace: ReturnType<typeof makeWorkspace>) {
  const measure = async (server: typeof before, queue: string) => {
    const worker = await ctx.worker(server, queue);
    try {
      return await concurrentRuns(ctx, server, worker.taskQueue, { concurrency: 50, iterations: ctx.options.runIterations, workspace });
    } finally {
      await worker.stop();
    }
  };
  ctx.log('plateau: 50 concurrent runs, before and after');
  const b = await measure(before, 'bench-plateau-load-before');
  const a = await measure(await ctx.defaultServer(), 'bench-plateau-load-after');
  return { before: b.iterationsPerSecond, after: a.iterationsPerSecond, beforeP95: b.p95, afterP95: a.p95 };
}
