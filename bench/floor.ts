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
import { forgetRequests, runScripted } from './agent-runs';
import type { BenchContext } from './context';
import { iterationLatencies, makeWorkspace } from './conversation';
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
  const product = await ctx.worker(server, `${taskQueue}-agent-run`);
  const workspace = makeWorkspace(iterations, 200);
  const floorRun = async (v: { taskQueue: string; local: boolean }, r: number) => {
    ticks = [];
    await server.client.workflow.execute('floorLoop', { taskQueue: v.taskQueue, workflowId: `floor-${r}-${v.taskQueue}-${v.local}-${Date.now()}`, args: [iterations, v.local] });
    return ticks.slice(1).map((t, i) => t - ticks[i]!);
  };
  const agentRun = async () => {
    const run = await runScripted(server, ctx.model, { iterations, workspace, taskQueue: product.taskQueue, input: { stream: false }, prefix: 'floor' });
    forgetRequests(ctx.model);
    return iterationLatencies(run.conversation);
  };
  const variants = [
    { name: 'an activity, then a local activity (an `agentRun` iteration with `read_file`)', run: (r: number) => floorRun({ taskQueue, local: true }, r), latencies: [] as number[] },
    { name: 'an activity only (one workflow task per iteration)', run: (r: number) => floorRun({ taskQueue, local: false }, r), latencies: [] as number[] },
    { name: 'the first row doing the work: the activity asks the scripted model, the local activity reads the file', run: (r: number) => floorRun({ taskQueue: `${taskQueue}-work`, local: true }, r), latencies: [] as number[] },
    { name: '`agentRun`, `stream: false`: a model call, then `read_file` of a 200-character file', run: () => agentRun(), latencies: [] as number[] },
  ];
  const plain: number[] = [];
  try {
    ctx.log(`floor: ${RUNS} × ${variants.length} runs of ${iterations} iterations, after one warm-up run each`);
    for (const v of variants) await v.run(-1);
    for (let r = 0; r < RUNS; r++) {
      for (const v of variants) v.latencies.push(...(await v.run(r)));
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
    await product.stop();
    workspace.dispose();
    forgetRequests(ctx.model);
    rmSync(file, { force: true });
  }
  const noise = meter.stop();
  const base = summarize(plain).p50;
  const [floorP50, , withWorkP50, agentRunP50] = variants.map((v) => summarize(v.latencies).p50) as [number, number, number, number];
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
      `A workflow that only runs an iteration's commands (\`bench/floor-workflow.ts\`: no-op activities, or doing the work in the third row), and an \`agentRun\` on the product's worker in the last row: ${RUNS} rounds of ${iterations} iterations of each row, interleaved, after one warm-up run each, on the server the other sections use; the floor's calls in-process took ${ms(base)} (p50).`,
      '',
      table(['each iteration', 'iterations', 'p50', 'p95', 'p50 − in-process'], rows),
      '',
      ...againstTheFloor(floorP50, withWorkP50, agentRunP50),
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}

/** The last row over the first, beside the least an iteration of the same two round trips can reach (the third row over the first). */
function againstTheFloor(floorP50: number, withWorkP50: number, agentRunP50: number): string[] {
  const ratio = (value: number) => `${(value / floorP50).toFixed(2)}×`;
  return [
    `An \`agentRun\` iteration is **${ratio(agentRunP50)}** the floor (the last row over the first). The floor's commands doing the work and nothing else (the third row) are ${ratio(withWorkP50)}: ` +
      `what an iteration with these two round trips costs if BareAgent's own code took no time; BareAgent's own code is the ${ms(agentRunP50 - withWorkP50)} between the third row and the last.`,
    '',
  ];
}
