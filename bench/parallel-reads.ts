/**
 * What a reply with four read-only calls costs against a reply with one, now that consecutive
 * read-only calls run at once: `agentRun` runs whose every turn is 1 or 4 read_file calls (different
 * files each), interleaved, on the default path (local activities) and with `toolTaskQueue` (each
 * read an ordinary activity: the path where running them one after another cost the most).
 * `npm run bench -- --only parallel-reads`.
 */
import os from 'node:os';
import { forgetRequests, runScripted } from './agent-runs';
import type { BenchContext } from './context';
import { iterationLatencies, makeWorkspace, type ScriptedCall } from './conversation';
import { stamp, table, type Block } from './report';
import { ms, summarize, type Summary } from './stats';

const readsOf =
  (count: number): ScriptedCall =>
  (turn, files) =>
    Array.from({ length: count }, (_, i) => ({ name: 'read_file', arguments: { file_path: `f${(turn * count + i) % files}.txt` } }));

type Path = 'local activities (default)' | 'toolTaskQueue (ordinary activities)';

export async function parallelReads(ctx: BenchContext): Promise<Block> {
  const { iterations, repeats } = ctx.options;
  const server = await ctx.defaultServer();
  const worker = await ctx.worker(server, 'bench-parallel-reads');
  const workspace = makeWorkspace(60, 4096);
  const paths: Path[] = ['local activities (default)', 'toolTaskQueue (ordinary activities)'];
  const latencies = new Map<string, number[]>();
  const once = async (where: Path, reads: number, n: number, keep: boolean) => {
    const run = await runScripted(server, ctx.model, {
      iterations: n,
      workspace,
      taskQueue: worker.taskQueue,
      input: { stream: false, permissionMode: 'bypass', checkpoints: false, ...(where === paths[1] ? { toolTaskQueue: worker.taskQueue } : {}) },
      prefix: `parallel-reads-${reads}`,
      call: readsOf(reads),
    });
    if (keep) latencies.set(`${where}|${reads}`, [...(latencies.get(`${where}|${reads}`) ?? []), ...iterationLatencies(run.conversation)]);
    forgetRequests(ctx.model);
  };
  try {
    ctx.log(`parallel-reads: warming up, then ${repeats} × 4 runs of ${iterations} iterations`);
    for (const where of paths) for (const reads of [1, 4]) await once(where, reads, 5, false);
    for (let r = 0; r < repeats; r++) for (const where of paths) for (const reads of [1, 4]) await once(where, reads, iterations, true);
  } finally {
    await worker.stop();
    workspace.dispose();
  }
  const rows = paths.map((where) => {
    const one = summarize(latencies.get(`${where}|1`) ?? []);
    const four = summarize(latencies.get(`${where}|4`) ?? []);
    return { where, one, four };
  });
  return { id: 'parallel-reads', markdown: report(rows, iterations, repeats, ctx.command) };
}

function report(rows: Array<{ where: Path; one: Summary; four: Summary }>, iterations: number, repeats: number, command: string): string {
  return [
    '## Read-only calls of one reply, at once',
    '',
    stamp(command),
    '',
    `Load average when it ended: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} on ${os.cpus().length} CPUs. ${repeats} × 4 \`agentRun\` runs of ${iterations} iterations on an in-process worker, interleaved; every turn 1 or 4 \`read_file\` calls (different files of a 60-file workspace), \`stream: false\`, checkpoints off. An iteration: from one model request to the next.`,
    '',
    table(
      ['tools run as', '1 read a reply, p50', '4 reads a reply, p50', '4 / 1 (p50)', '4 reads, p95'],
      rows.map(({ where, one, four }) => [where, ms(one.p50), ms(four.p50), `${(four.p50 / one.p50).toFixed(2)}×`, ms(four.p95)]),
    ),
  ].join('\n');
}
