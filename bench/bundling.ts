/**
 * (iii) Bundling the workflow code once: worker start-up (spawn to "Worker polling") with a
 * prebuilt bundle (BAREAGENT_WORKFLOW_BUNDLE) against `workflowsPath` (bundled at every start).
 */
import { randomUUID } from 'node:crypto';
import type { BenchContext } from './context';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import { ms, summarize } from './stats';
import { spawnWorker } from './worker-process';

export async function bundling(ctx: BenchContext): Promise<Block> {
  const { startups } = ctx.options;
  const meter = new NoiseMeter();
  const server = await ctx.defaultServer();
  const times = { prebuilt: [] as number[], workflowsPath: [] as number[], rss: { prebuilt: [] as number[], workflowsPath: [] as number[] } };
  for (let i = 0; i < startups; i++) {
    for (const mode of ['workflowsPath', 'prebuilt'] as const) {
      ctx.log(`bundle: start-up ${i + 1}/${startups} with ${mode}`);
      const worker = await spawnWorker({
        address: server.address,
        taskQueue: `bench-bundle-${randomUUID().slice(0, 8)}`,
        modelUrl: ctx.model.url,
        ...(mode === 'prebuilt' ? { bundlePath: ctx.bundle.codePath } : {}),
      });
      times[mode].push(worker.startupMs);
      times.rss[mode].push(worker.memory().rss);
      await worker.stop();
    }
  }
  const noise = meter.stop();
  const row = (name: string, values: number[], rss: number[]) => {
    const s = summarize(values);
    return [name, s.n, ms(s.p50, 0), ms(Math.min(...values), 0), ms(s.max, 0), `${(summarize(rss).p50 / 1024 / 1024).toFixed(0)} MiB`];
  };
  const before = summarize(times.workflowsPath).p50;
  const after = summarize(times.prebuilt).p50;
  return {
    id: 'bundle',
    markdown: [
      '## (iii) Bundling the workflow code once',
      '',
      stamp(ctx.command),
      '',
      'A worker process (`node --import tsx src/worker.ts`) from spawn to "Worker polling", alternating the two modes. ' +
        'The prebuilt bundle is the one `bundleWorkflowCode` wrote at the start of the bench (the tests do the same once per `npm test`).',
      '',
      table(
        ['workflow code', 'start-ups', 'median', 'min', 'max', 'RSS after start'],
        [row('`workflowsPath` (bundled at start, the default)', times.workflowsPath, times.rss.workflowsPath), row('prebuilt bundle (`BAREAGENT_WORKFLOW_BUNDLE`)', times.prebuilt, times.rss.prebuilt)],
      ),
      '',
      `Before → after: ${ms(before, 0)} → ${ms(after, 0)} (${ms(before - after, 0)} less per worker start).`,
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}
