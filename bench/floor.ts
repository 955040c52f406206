/**
 * The floor under the overhead target: how long an iteration takes when the workflow does nothing
 * but an agent iteration's commands (an activity for the model call, a local activity for a read),
 * on the same server and SDK. What `agentRun` costs above this is BareAgent's own; the floor itself
 * is the SDK's and the server's.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { BenchContext } from './context';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import { silentLogger } from './setup';
import { ms, summarize } from './stats';

const RUNS = 3;

export async function floor(ctx: BenchContext): Promise<Block> {
  const { iterations } = ctx.options;
  const meter = new NoiseMeter();
  const server = await ctx.defaultServer();
  const file = path.join(os.tmpdir(), `bareagent-floor-${process.pid}.txt`);
  writeFileSync(file, 'x'.repeat(200));
  let ticks: number[] = [];
  const activities = {
    tick: async () => void ticks.push(performance.now()),
    read: async () => readFileSync(file, 'utf8'),
  };
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./floor-workflow'), logger: silentLogger });
  const taskQueue = 'bench-floor';
  const worker = await Worker.create({ connection: server.native, namespace: 'default', taskQueue, workflowBundle: { code }, activities });
  const running = worker.run();
  const variants = [
    { name: 'an activity, then a local activity (an `agentRun` iteration with `read_file`)', local: true, latencies: [] as number[] },
    { name: 'an activity only (one workflow task per iteration)', local: false, latencies: [] as number[] },
  ];
  const plain: number[] = [];
  try {
    ctx.log(`floor: ${RUNS} × ${variants.length} runs of ${iterations} iterations`);
    for (let r = 0; r < RUNS; r++) {
      for (const v of variants) {
        ticks = [];
        await server.client.workflow.execute('floorLoop', { taskQueue, workflowId: `floor-${r}-${v.local}-${Date.now()}`, args: [iterations, v.local] });
        v.latencies.push(...ticks.slice(1).map((t, i) => t - ticks[i]!));
      }
      ticks = [];
      for (let i = 0; i < iterations; i++) {
        await activities.tick();
        await activities.read();
      }
      plain.push(...ticks.slice(1).map((t, i) => t - ticks[i]!));
    }
  } finally {
    worker.shutdown();
    await running;
    rmSync(file, { force: true });
  }
  const noise = meter.stop();
  const base = summarize(plain).p50;
  const rows = variants.map((v) => {
    const s = summarize(v.latencies);
    return [v.name, s.n, ms(s.p50), ms(s.p95), ms(s.p50 - base)];
  });
  return {
    id: 'floor',
    markdown: [
      '## The floor: the same commands without BareAgent',
      '',
      stamp(ctx.command),
      '',
      `A workflow that only runs an iteration's commands (\`bench/floor-workflow.ts\`: no-op activities), ${RUNS} runs of ${iterations} iterations each, on the server the other sections use; the same calls in-process took ${ms(base)} (p50).`,
      '',
      table(['each iteration', 'iterations', 'p50', 'p95', 'p50 − in-process'], rows),
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}
