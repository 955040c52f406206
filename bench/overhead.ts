/**
 * 1. Overhead per iteration: one scripted conversation (N iterations, one read_file of a small
 * file each) as the plain in-process loop and as `agentRun`, runs interleaved so that noise hits
 * every mode alike. An iteration is the time between two consecutive model requests.
 */
import { iterationLatencies, makeWorkspace, scriptConversation } from './conversation';
import { forgetRequests, runScripted } from './agent-runs';
import type { BenchContext } from './context';
import { fetchEvents, timeBreakdown, type TimeBreakdown } from './history';
import { NoiseMeter, describeNoise } from './noise';
import { plainLoop } from './plain-loop';
import { stamp, table, type Block } from './report';
import { ms, percentile, summarize } from './stats';

export const OVERHEAD_TARGET_MS = 15;

interface ModeResult {
  latencies: number[];
  model: number[];
  tool: number[];
  breakdown?: TimeBreakdown;
}

export async function overhead(ctx: BenchContext): Promise<Block> {
  const { iterations, repeats, longRun } = ctx.options;
  const meter = new NoiseMeter();
  const server = await ctx.defaultServer();
  const worker = await ctx.worker(server, 'bench-overhead');
  const workspace = makeWorkspace(Math.max(iterations, longRun), 200);
  const provider = { baseURL: ctx.model.url, requestTimeoutMs: 30_000 };

  const plain = async (n: number, into?: ModeResult) => {
    const name = `plain-${Math.random().toString(36).slice(2, 10)}`;
    const conversation = scriptConversation(ctx.model, name, n, workspace.files);
    await plainLoop({
      provider,
      model: name,
      prompt: 'Read the files one by one.',
      workspace: workspace.dir,
      maxIterations: n + 10,
      onTiming: (kind, t) => into?.[kind].push(t),
    });
    into?.latencies.push(...iterationLatencies(conversation));
  };
  const durable = (stream: boolean) => async (n: number, into?: ModeResult) => {
    const run = await runScripted(server, ctx.model, { iterations: n, workspace, taskQueue: worker.taskQueue, input: { stream }, prefix: 'overhead' });
    if (!into) return;
    into.latencies.push(...iterationLatencies(run.conversation));
    into.breakdown = timeBreakdown(await fetchEvents(server.client, run.handle.workflowId), n + 1);
  };
  const modes = [
    { name: 'plain loop (in-process, same activities and loop modules)', run: plain },
    { name: '`agentRun`, `stream: false` (like for like)', run: durable(false) },
    { name: '`agentRun`, default input (`stream: true`)', run: durable(true) },
  ];
  const results = modes.map((): ModeResult => ({ latencies: [], model: [], tool: [] }));
  let long: number[] = [];
  try {
    ctx.log(`overhead: warming up, then ${repeats} × ${modes.length} runs of ${iterations} iterations`);
    for (const mode of modes) await mode.run(5);
    for (let r = 0; r < repeats; r++) {
      for (const [i, mode] of modes.entries()) {
        await mode.run(iterations, results[i]);
        forgetRequests(ctx.model);
      }
    }
    if (longRun > 0) {
      ctx.log(`overhead: one run of ${longRun} iterations`);
      const run = await runScripted(server, ctx.model, { iterations: longRun, workspace, taskQueue: worker.taskQueue, prefix: 'overhead-long' });
      long = iterationLatencies(run.conversation);
      forgetRequests(ctx.model);
    }
  } finally {
    await worker.stop();
    workspace.dispose();
  }
  const noise = meter.stop();
  const base = summarize(results[0]!.latencies);
  const rows = modes.map((mode, i) => {
    const s = summarize(results[i]!.latencies);
    return [mode.name, s.n, ms(s.p50), ms(s.p95), ms(s.mean), i === 0 ? '–' : ms(s.p50 - base.p50), i === 0 ? '–' : ms(s.p95 - base.p95)];
  });
  const likeForLike = summarize(results[1]!.latencies).p50 - base.p50;
  const withStream = summarize(results[2]!.latencies).p50 - base.p50;
  const verdict = (value: number) =>
    value <= OVERHEAD_TARGET_MS ? `reached (${ms(value)})` : `missed by ${ms(value - OVERHEAD_TARGET_MS)} (${ms(value)})`;
  const b = results[1]!.breakdown;
  const plainModel = percentile(results[0]!.model, 50);
  const plainTool = percentile(results[0]!.tool, 50);
  return {
    id: 'overhead',
    markdown: [
      '## 1. Overhead per iteration',
      '',
      stamp(ctx.command),
      '',
      `${repeats} runs per mode of ${iterations} iterations (one \`read_file\` of a ${workspace.outputChars}-character output each), interleaved, after one warm-up run each. ` +
        'An iteration is the time between two consecutive requests to the scripted model (which answers at once): model call, tool, and for `agentRun` the workflow tasks in between.',
      '',
      table(['mode', 'iterations', 'p50', 'p95', 'mean', 'p50 − plain', 'p95 − plain'], rows),
      '',
      `**Target: overhead ≤ ${OVERHEAD_TARGET_MS} ms per iteration (p50).** Like for like (\`stream: false\`): ${verdict(likeForLike)}. With the default streaming input: ${verdict(withStream)}.`,
      '',
      'Where an `agentRun` iteration goes (`stream: false`, medians from the last run\'s event times; the plain loop timed in-process):',
      '',
      table(
        ['step', '`agentRun`', 'plain loop'],
        [
          ['model call (activity start → close / in-process call)', ms(b?.modelCallStartToClose ?? NaN), ms(plainModel)],
          // A local activity leaves only a marker, with no times of its own: its time is in the workflow task's.
          ['read_file (a local activity: part of the workflow task below / in-process call)', '–', ms(plainTool)],
          ['activity schedule → start (0 with eager dispatch)', ms(b?.activityScheduleToStart ?? NaN), '–'],
          [`workflow task schedule → start (× ${(b?.workflowTasksPerIteration ?? NaN).toFixed(1)} per iteration)`, ms(b?.workflowTaskScheduleToStart ?? NaN), '–'],
          ['workflow task start → complete (worker: activation, commands, RPC)', ms(b?.workflowTaskStartToComplete ?? NaN), '–'],
        ],
      ),
      '',
      ...longRunLines(long),
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}

/** One long run with the default input: is an iteration late in the run as fast as an early one? */
function longRunLines(latencies: number[]): string[] {
  if (latencies.length < 120) return [];
  const first = percentile(latencies.slice(0, 50), 50);
  const last = percentile(latencies.slice(-70), 50);
  return [
    `One run of ${latencies.length} iterations with the default input: p50 of the last 70 iterations ${ms(last)} against ${ms(first)} for the first 50, a ratio of **${(last / first).toFixed(2)}** (target ≤ 1.2).`,
    '',
  ];
}
