/** (i) Eager activity dispatch on the dev server (`system.enableActivityEagerExecution`), with and without. */
import type { BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { concurrentRuns, latencyProfile, type LoadResult } from './load';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import { ms, summarize } from './stats';

const SINGLE_RUNS = 3;

export async function eager(ctx: BenchContext): Promise<Block> {
  const { iterations, runIterations } = ctx.options;
  const meter = new NoiseMeter();
  const workspace = makeWorkspace(Math.max(iterations, runIterations), 200);
  const off = await ctx.server({ eager: false });
  const on = await ctx.defaultServer();
  const variants = [
    { name: 'off (the server default)', server: off, worker: await ctx.worker(off, 'bench-eager-off'), latencies: [] as number[], load: undefined as LoadResult | undefined },
    { name: 'on (`system.enableActivityEagerExecution=true`, src/server/dev-server.ts)', server: on, worker: await ctx.worker(on, 'bench-eager-on'), latencies: [] as number[], load: undefined as LoadResult | undefined },
  ];
  try {
    for (const v of variants) await latencyProfile(ctx, v.server, v.worker.taskQueue, { iterations: 5, workspace }); // warm-up
    ctx.log(`eager: ${SINGLE_RUNS} single runs each, alternating, then 50 concurrent runs each`);
    for (let r = 0; r < SINGLE_RUNS; r++) {
      for (const v of variants) v.latencies.push(...(await latencyProfile(ctx, v.server, v.worker.taskQueue, { iterations, workspace })).latencies);
    }
    for (const v of variants) v.load = await concurrentRuns(ctx, v.server, v.worker.taskQueue, { concurrency: 50, iterations: runIterations, workspace });
  } finally {
    for (const v of variants) await v.worker.stop();
    await off.stop();
    workspace.dispose();
  }
  const noise = meter.stop();
  const rows = variants.map((v) => ({ name: v.name, single: summarize(v.latencies), load: v.load! }));
  const [before, after] = rows;
  return {
    id: 'eager',
    markdown: [
      '## (i) Eager activity dispatch',
      '',
      stamp(ctx.command),
      '',
      `${SINGLE_RUNS} runs of ${iterations} iterations each (\`stream: false\`), alternating between the two servers, then 50 concurrent runs of ${runIterations} on each; ` +
        'both servers otherwise as src/server/dev-server.ts starts them. With eager dispatch the worker gets the activity in the reply to the workflow task that scheduled it, skipping matching.',
      '',
      table(
        ['eager dispatch', 'one run: p50', 'one run: p95', '50 runs: iterations/s', '50 runs: p95'],
        rows.map((r) => [r.name, ms(r.single.p50), ms(r.single.p95), r.load.iterationsPerSecond.toFixed(1), ms(r.load.p95)]),
      ),
      '',
      before && after
        ? `Off → on: p50 ${ms(before.single.p50)} → ${ms(after.single.p50)} per iteration; ${before.load.iterationsPerSecond.toFixed(1)} → ${after.load.iterationsPerSecond.toFixed(1)} iterations/s at 50 runs.`
        : '',
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}
