/** (i) Eager activity dispatch on the dev server (`system.enableActivityEagerExecution`), with and without. */
import type { BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { concurrentRuns, latencyProfile, type LoadResult, type ProfileResult } from './load';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import { ms } from './stats';

export async function eager(ctx: BenchContext): Promise<Block> {
  const { iterations, runIterations } = ctx.options;
  const meter = new NoiseMeter();
  const workspace = makeWorkspace(Math.max(iterations, runIterations), 200);
  const rows: Array<{ name: string; single: ProfileResult; load: LoadResult }> = [];
  try {
    for (const on of [false, true]) {
      const server = on ? await ctx.defaultServer() : await ctx.server({ eager: false });
      const worker = await ctx.worker(server, `bench-eager-${on ? 'on' : 'off'}`);
      try {
        ctx.log(`eager: ${on ? 'on' : 'off'}`);
        await latencyProfile(ctx, server, worker.taskQueue, { iterations: 5, workspace }); // warm-up
        const single = await latencyProfile(ctx, server, worker.taskQueue, { iterations, workspace });
        const load = await concurrentRuns(ctx, server, worker.taskQueue, { concurrency: 50, iterations: runIterations, workspace });
        rows.push({ name: on ? 'on (`system.enableActivityEagerExecution=true`, src/server/dev-server.ts)' : 'off (the server default)', single, load });
      } finally {
        await worker.stop();
        if (!on) await server.stop();
      }
    }
  } finally {
    workspace.dispose();
  }
  const noise = meter.stop();
  const [off, on] = rows;
  return {
    id: 'eager',
    markdown: [
      '## (i) Eager activity dispatch',
      '',
      stamp(ctx.command),
      '',
      `One run of ${iterations} iterations (\`stream: false\`), then 50 concurrent runs of ${runIterations}; both servers otherwise as src/server/dev-server.ts starts them. ` +
        'With eager dispatch the worker gets the activity in the reply to the workflow task that scheduled it, skipping matching.',
      '',
      table(
        ['eager dispatch', 'one run: p50', 'one run: p95', '50 runs: iterations/s', '50 runs: p95'],
        rows.map((r) => [r.name, ms(r.single.p50), ms(r.single.p95), r.load.iterationsPerSecond.toFixed(1), ms(r.load.p95)]),
      ),
      '',
      off && on ? `Off → on: p50 ${ms(off.single.p50)} → ${ms(on.single.p50)} per iteration; ${off.load.iterationsPerSecond.toFixed(1)} → ${on.load.iterationsPerSecond.toFixed(1)} iterations/s at 50 runs.` : '',
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}

