/**
 * The worker's SDK patch (patches/@temporalio+worker+1.23.0.patch), one lever at a time: the SDK
 * as shipped (a vm watchdog thread per call into the workflow context, the promise hook that
 * records a stack per workflow promise), then one watchdog per activation, then the hook off too
 * (the default). Three workers on one server, their workflow threads started with the variables
 * each variant sets; runs interleaved, with the plain loop as the baseline.
 */
import { iterationLatencies, makeWorkspace, scriptConversation } from './conversation';
import { forgetRequests, runScripted } from './agent-runs';
import type { BenchContext } from './context';
import { NoiseMeter, describeNoise } from './noise';
import { OVERHEAD_TARGET_MS } from './overhead';
import { plainLoop } from './plain-loop';
import { stamp, table, type Block } from './report';
import type { BenchWorker } from './setup';
import { ms, summarize } from './stats';

const VARIANTS = [
  { name: 'the SDK as shipped (a watchdog per call, promise hook on)', env: { BAREAGENT_VM_WATCHDOG: 'per-call', BAREAGENT_WORKFLOW_STACK_TRACES: '1' } },
  { name: 'one watchdog per activation, promise hook on', env: { BAREAGENT_VM_WATCHDOG: undefined, BAREAGENT_WORKFLOW_STACK_TRACES: '1' } },
  { name: 'one watchdog per activation, promise hook off (default)', env: { BAREAGENT_VM_WATCHDOG: undefined, BAREAGENT_WORKFLOW_STACK_TRACES: undefined } },
] as const;

/** A worker whose workflow thread starts with these variables (threads copy the environment when they start). */
async function workerWith(start: () => Promise<BenchWorker>, env: Record<string, string | undefined>): Promise<BenchWorker> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(env);
  try {
    return await start();
  } finally {
    apply(saved);
  }
}

export async function sdkPatch(ctx: BenchContext): Promise<Block> {
  const { iterations, repeats } = ctx.options;
  const meter = new NoiseMeter();
  const server = await ctx.defaultServer();
  const workspace = makeWorkspace(iterations, 200);
  const workers: BenchWorker[] = [];
  for (const [i, variant] of VARIANTS.entries()) workers.push(await workerWith(() => ctx.worker(server, `bench-sdk-patch-${i}`), variant.env));
  const provider = { baseURL: ctx.model.url, requestTimeoutMs: 30_000 };
  const plain = async (n: number, into?: number[]) => {
    const name = `plain-${Math.random().toString(36).slice(2, 10)}`;
    const conversation = scriptConversation(ctx.model, name, n, workspace.files);
    await plainLoop({ provider, model: name, prompt: 'Read the files one by one.', workspace: workspace.dir, maxIterations: n + 10 });
    into?.push(...iterationLatencies(conversation));
  };
  const modes = [
    { name: 'plain loop (in-process)', run: plain },
    ...VARIANTS.flatMap((variant, i) =>
      [true, false].map((stream) => ({
        name: `${variant.name}, \`stream: ${stream}\``,
        run: async (n: number, into?: number[]) => {
          const run = await runScripted(server, ctx.model, { iterations: n, workspace, taskQueue: workers[i]!.taskQueue, input: { stream }, prefix: 'sdk-patch' });
          into?.push(...iterationLatencies(run.conversation));
        },
      })),
    ),
  ];
  const results = modes.map((): number[] => []);
  try {
    ctx.log(`sdk-patch: warming up, then ${repeats} × ${modes.length} runs of ${iterations} iterations`);
    for (const mode of modes) await mode.run(5);
    for (let r = 0; r < repeats; r++) {
      for (const [i, mode] of modes.entries()) {
        await mode.run(iterations, results[i]);
        forgetRequests(ctx.model);
      }
    }
  } finally {
    for (const worker of workers) await worker.stop();
    workspace.dispose();
  }
  const noise = meter.stop();
  const base = summarize(results[0]!).p50;
  const shipped = (stream: boolean) => summarize(results[stream ? 1 : 2]!).p50 - base;
  const rows = modes.map((mode, i) => {
    const s = summarize(results[i]!);
    const over = s.p50 - base;
    const stream = mode.name.endsWith('`stream: true`');
    return [mode.name, s.n, ms(s.p50), ms(s.p95), i === 0 ? '–' : ms(over), i <= 2 ? '–' : ms(over - shipped(stream))];
  });
  return {
    id: 'sdk-patch',
    markdown: [
      '## The SDK patch, one lever at a time',
      '',
      stamp(ctx.command),
      '',
      `${repeats} runs per mode of ${iterations} iterations (one \`read_file\` each), interleaved, after one warm-up run each, on one server; ` +
        'each variant on a worker of its own, its workflow thread started with `BAREAGENT_VM_WATCHDOG` and `BAREAGENT_WORKFLOW_STACK_TRACES` as the row says.',
      '',
      table(['mode', 'iterations', 'p50', 'p95', 'p50 − plain (overhead)', 'overhead − the SDK as shipped'], rows),
      '',
      `Target: overhead ≤ ${OVERHEAD_TARGET_MS} ms per iteration before this round; this round's targets are 12 ms (\`stream: true\`) and 10 ms (\`stream: false\`).`,
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}
