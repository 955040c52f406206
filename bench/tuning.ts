/**
 * (ii) Worker options at 50–100 concurrent runs: the workflow cache, workflow-task slots and
 * pollers, each changed alone against the defaults of createBareAgentWorker.
 */
import { measureEachVariant, type BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { concurrentRuns, type LoadResult } from './load';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import type { WorkerTuning } from './setup';
import { ms } from './stats';

/** Other processes' CPU share below which a row counts as undisturbed. */
const QUIET = 0.1;
const DEFAULTS = 'defaults (cache ≈ heap-sized, 40 workflow-task slots, 10 + 10 pollers)';

/** `firstLevelOnly`: slow enough that one level tells the story (the default bench stays under ~10 minutes). */
const VARIANTS: Array<{ name: string; tuning?: WorkerTuning; firstLevelOnly?: boolean }> = [
  { name: DEFAULTS },
  { name: '`maxCachedWorkflows: 25` (fewer than the runs: evictions, then full replays)', tuning: { maxCachedWorkflows: 25 }, firstLevelOnly: true },
  { name: '`maxConcurrentWorkflowTaskExecutions: 100`', tuning: { maxConcurrentWorkflowTaskExecutions: 100 } },
  {
    name: "pollers `{ type: 'autoscaling' }` (workflow and activity)",
    tuning: { workflowTaskPollerBehavior: { type: 'autoscaling' }, activityTaskPollerBehavior: { type: 'autoscaling' } },
  },
  { name: `${DEFAULTS}, again (the spread between the default rows is the noise)` },
];

export async function tuning(ctx: BenchContext): Promise<Block> {
  const { tuningConcurrency, runIterations } = ctx.options;
  const meter = new NoiseMeter();
  const workspace = makeWorkspace(runIterations, 200);
  const rows: Array<Array<string | number>> = [];
  const measured: Array<{ variant: number; result: LoadResult }> = [];
  const indexed = VARIANTS.map((variant, i) => ({ ...variant, i }));
  const setup = (variant: (typeof indexed)[number]) => ({ server: {}, taskQueue: `bench-tuning-${variant.i}`, ...(variant.tuning ? { tuning: variant.tuning } : {}) });
  await measureEachVariant(ctx, indexed, setup, workspace, async (variant, taskQueue, server) => {
    await concurrentRuns(ctx, server, taskQueue, { concurrency: 2, iterations: 3, workspace }); // warm-up
    for (const concurrency of variant.firstLevelOnly ? tuningConcurrency.slice(0, 1) : tuningConcurrency) {
      ctx.log(`tuning: ${variant.name} at ${concurrency}`);
      measured.push({ variant: variant.i, result: await concurrentRuns(ctx, server, taskQueue, { concurrency, iterations: runIterations, workspace }) });
    }
  });
  const noise = meter.stop();
  // The defaults are measured first and last: "vs defaults" compares with their mean at the same
  // level, leaving out a default row that other processes disturbed when there is a quiet one.
  const isDefaults = (i: number) => VARIANTS[i]!.name.startsWith(DEFAULTS);
  for (const { variant, result: r } of measured) {
    const all = measured.filter((m) => isDefaults(m.variant) && m.result.concurrency === r.concurrency).map((m) => m.result);
    const quiet = all.filter((d) => d.others < QUIET);
    const defaults = (quiet.length ? quiet : all).map((d) => d.iterationsPerSecond);
    const base = defaults.reduce((a, b) => a + b, 0) / defaults.length;
    const change = isDefaults(variant) ? '–' : `${(((r.iterationsPerSecond - base) / base) * 100).toFixed(0)}%`;
    rows.push([
      VARIANTS[variant]!.name,
      r.concurrency,
      r.iterationsPerSecond.toFixed(1),
      change,
      ms(r.p50),
      ms(r.p95),
      ms(r.cpuPerIteration.bench + r.cpuPerIteration.server),
      `${Math.round(r.others * 100)}%`,
    ]);
  }
  return {
    id: 'tuning',
    markdown: [
      '## (ii) Worker cache, slots and pollers',
      '',
      stamp(ctx.command),
      '',
      `Runs of ${runIterations} iterations, all started at once, a fresh dev server and worker per variant; one option changed at a time, ` +
        'the defaults measured first and again last. A difference smaller than the one between the default rows, or a row taken while other processes used much CPU, is noise.',
      '',
      table(
        ['worker options', 'concurrent runs', 'iterations/s', 'vs defaults (mean of the undisturbed default rows)', 'iteration p50', 'iteration p95', 'CPU per iteration (bench process + server)', 'other processes\' CPU meanwhile'],
        rows,
      ),
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}
