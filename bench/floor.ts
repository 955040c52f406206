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
import OpenAI from 'openai';
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
  // The same two commands doing the iteration's work and nothing else: a request to the scripted
  // model through the client library the product uses, and a read of the file.
  const scenario = `floor-work-${process.pid}`;
  ctx.model.setScenario(scenario, () => ({ text: 'ok' }));
  const client = new OpenAI({ apiKey: 'unused-local-key', baseURL: ctx.model.url, maxRetries: 0 });
  const working = {
    tick: async () => {
      await client.chat.completions.create({ model: scenario, messages: [{ role: 'user', content: 'Read the next file.' }] });
      ticks.push(performance.now());
    },
    read: activities.read,
  };
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./floor-workflow'), logger: silentLogger });
  const taskQueue = 'bench-floor';
  const worker = await Worker.create({ connection: server.native, namespace: 'default', taskQueue, workflowBundle: { code }, activities });
  const workingWorker = await Worker.create({ connection: server.native, namespace: 'default', taskQueue: `${taskQueue}-work`, workflowBundle: { code }, activities: working });
  const running = Promise.all([worker.run(), workingWorker.run()]);
  const variants = [
    { name: 'an activity, then a local activity (an `agentRun` iteration with `read_file`)', local: true, taskQueue, latencies: [] as number[] },
    { name: 'an activity only (one workflow task per iteration)', local: false, taskQueue, latencies: [] as number[] },
    { name: 'the first row doing the work: the activity asks the scripted model, the local activity reads the file', local: true, taskQueue: `${taskQueue}-work`, latencies: [] as number[] },
  ];
  const plain: number[] = [];
  try {
    ctx.log(`floor: ${RUNS} × ${variants.length} runs of ${iterations} iterations`);
    for (let r = 0; r < RUNS; r++) {
      for (const v of variants) {
        ticks = [];
        await server.client.workflow.execute('floorLoop', { taskQueue: v.taskQueue, workflowId: `floor-${r}-${v.taskQueue}-${v.local}-${Date.now()}`, args: [iterations, v.local] });
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
    workingWorker.shutdown();
    await running;
    ctx.model.requests.length = 0;
    rmSync(file, { force: true });
  }
  const noise = meter.stop();
  const base = summarize(plain).p50;
  const floorP50 = summarize(variants[0]!.latencies).p50;
  const withWorkP50 = summarize(variants[2]!.latencies).p50;
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
      ...againstTheFloor(ctx, floorP50, withWorkP50),
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}

/**
 * An `agentRun` iteration (section 1 of the same bench run) over this floor, beside the least an
 * iteration of the same two round trips can reach: the floor's commands doing the work and nothing
 * else (the third row), and the floor plus the plain loop's whole iteration.
 */
function againstTheFloor(ctx: BenchContext, floorP50: number, withWorkP50: number): string[] {
  const ratio = (value: number) => `${(value / floorP50).toFixed(2)}×`;
  const bound = `The floor's commands doing the work and nothing else (the third row) take ${ms(withWorkP50)}, **${ratio(withWorkP50)}** the first row: what an iteration with these two round trips costs if BareAgent's own code took no time.`;
  const plain = ctx.figures.get('plain loop p50');
  const durable = ctx.figures.get('agentRun p50, stream: false');
  const streaming = ctx.figures.get('agentRun p50, stream: true');
  if (plain === undefined || durable === undefined || streaming === undefined) return [bound, ''];
  return [
    `${bound} The floor plus the plain loop's iteration (${ms(plain)}, section 1) is ${ms(floorP50 + plain)}, ${ratio(floorP50 + plain)}.`,
    '',
    `An \`agentRun\` iteration (section 1, same bench run): ${ms(durable)} with \`stream: false\` and ${ms(streaming)} by default, **${ratio(durable)}** and **${ratio(streaming)}** the first row.`,
    '',
  ];
}
