/**
 * (iv) The embedded server keeps its state in a SQLite file (`--db-filename`), where every
 * commit waits for the disk (SQLite's defaults: a rollback journal, synchronous=FULL). The bench
 * runs in memory; this section measures what the file costs, and the same file with
 * `--sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal` (a commit survives a
 * crash of the server process; only an OS crash or power loss can lose the last ones).
 */
import { EMBEDDED_SQLITE_PRAGMAS } from '../src/server/dev-server';
import { measureEachVariant, type BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { concurrentRuns, latencyProfile, type LoadResult, type ProfileResult } from './load';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import type { ServerOptions } from './setup';
import { ms } from './stats';

const WAL_PRAGMAS = { ...EMBEDDED_SQLITE_PRAGMAS };

const VARIANTS: Array<{ name: string; server: ServerOptions }> = [
  { name: 'in memory (every other section of the bench)', server: { persistent: false } },
  { name: 'SQLite file, SQLite\'s own defaults (the embedded server before 75dd86b)', server: { persistent: true, sqlitePragmas: {} } },
  { name: 'SQLite file, `--sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal` (the embedded server now)', server: { persistent: true, sqlitePragmas: WAL_PRAGMAS } },
];

export async function sqlite(ctx: BenchContext): Promise<Block> {
  const { runIterations } = ctx.options;
  const iterations = 30;
  const meter = new NoiseMeter();
  const workspace = makeWorkspace(Math.max(iterations, runIterations), 200);
  const rows: Array<{ name: string; single: ProfileResult; load: LoadResult }> = [];
  await measureEachVariant(ctx, VARIANTS, (variant, i) => ({ server: variant.server, taskQueue: `bench-sqlite-${i}` }), workspace, async (variant, taskQueue, server) => {
    ctx.log(`sqlite: ${variant.name}`);
    await latencyProfile(ctx, server, taskQueue, { iterations: 5, workspace }); // warm-up
    const single = await latencyProfile(ctx, server, taskQueue, { iterations, workspace });
    const load = await concurrentRuns(ctx, server, taskQueue, { concurrency: 50, iterations: runIterations, workspace });
    rows.push({ name: variant.name, single, load });
  });
  const noise = meter.stop();
  return {
    id: 'sqlite',
    markdown: [
      '## (iv) The dev server\'s SQLite file',
      '',
      stamp(ctx.command),
      '',
      `One run of ${iterations} iterations (\`stream: false\`), then 50 concurrent runs of ${runIterations}, on a dev server started by src/server/dev-server.ts in each storage mode.`,
      '',
      table(
        ['storage', 'one run: p50', 'one run: p95', '50 runs: iterations/s', '50 runs: p95', 'server CPU per iteration'],
        rows.map((r) => [r.name, ms(r.single.p50), ms(r.single.p95), r.load.iterationsPerSecond.toFixed(1), ms(r.load.p95), ms(r.load.cpuPerIteration.server)]),
      ),
      '',
      `Noise: ${describeNoise(noise)}.`,
    ].join('\n'),
  };
}
