/**
 * What workspace checkpoints cost, two ways:
 * 1. per checkpoint: the snapshot of a small project, a 10,000-file tree and a 100 MB tree into a
 *    fresh shadow store (the first one, which reads every file), then with one file changed (the
 *    store's index keeps stat data: only that file is read), and the bytes the store grows by;
 * 2. per iteration: `agentRun` runs where every turn writes a file, checkpoints on and off
 *    (input `checkpoints: false`), interleaved.
 * `npm run bench -- --only checkpoints`, or the first part alone: `npx tsx bench/checkpoints.ts`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { takeCheckpoint } from '../src/checkpoints/incremental';
import { snapshotLimits } from '../src/checkpoints/limits';
import { forgetRequests, runScripted } from './agent-runs';
import type { BenchContext } from './context';
import { iterationLatencies, makeWorkspace, writeCall } from './conversation';
import { stamp, table, type Block } from './report';
import { bytes, ms, summarize, type Summary } from './stats';

interface TreeSpec {
  name: string;
  files: number;
  bytesPerFile: number;
  /** Random bytes (incompressible) rather than text. */
  random: boolean;
}

const TREES: TreeSpec[] = [
  { name: 'small project (60 files, 4 KB each, in 6 directories)', files: 60, bytesPerFile: 4096, random: false },
  { name: '10,000 files (1 KB each, in 100 directories)', files: 10_000, bytesPerFile: 1024, random: false },
  { name: '100 MB (100 files of 1 MB, random bytes)', files: 100, bytesPerFile: 1024 * 1024, random: true },
];

const CHANGED_RUNS = 5;

export interface TreeCost {
  spec: TreeSpec;
  firstMs: number;
  firstBytes: number;
  /** One file changed, found by a stat scan (after bash, a job, an MCP call). */
  changed: Summary;
  /** One file changed, its path known (after write_file or edit_file). */
  known: Summary;
  /** Nothing changed: a scan that reads no file. */
  unchanged: Summary;
  /** The first checkpoint of a second run in the same workspace, the store already holding it. */
  seenMs: number;
  changedBytes: number;
}

function makeTree(spec: TreeSpec): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'bench-ckpt-ws-')));
  const dirs = Math.max(1, Math.round(spec.files / 100));
  for (let d = 0; d < dirs; d++) mkdirSync(path.join(dir, `d${d}`));
  for (let i = 0; i < spec.files; i++) {
    const content = spec.random ? randomBytes(spec.bytesPerFile) : Buffer.from(`${i}:`.padEnd(spec.bytesPerFile - 1, 'x') + '\n');
    writeFileSync(path.join(dir, `d${i % dirs}`, `f${i}.txt`), content);
  }
  return dir;
}

const storeBytes = (store: string): number => Number(execFileSync('du', ['-sb', store]).toString().split('\t')[0]);

export async function measureTree(spec: TreeSpec): Promise<TreeCost> {
  const workspace = makeTree(spec);
  const store = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-ckpt-store-')), 'store.git');
  const limits = snapshotLimits();
  let previous: string | undefined;
  // As the checkpointWorkspace activity takes it, without the activity round trip.
  const take = async (label: string, paths?: string[], ref = 'refs/bareagent/runs/bench'): Promise<number> => {
    const started = performance.now();
    const taken = await takeCheckpoint({ store, root: workspace, ref, message: label, deny: [], limits, previous, paths });
    const elapsed = performance.now() - started;
    previous = taken.tree;
    if (taken.files !== spec.files) throw new Error(`checkpoint bench: ${taken.files} files in the snapshot, expected ${spec.files}`);
    return elapsed;
  };
  const change = (i: number) => writeFileSync(path.join(workspace, 'd0', 'f0.txt'), spec.random ? randomBytes(spec.bytesPerFile) : `changed ${i}\n`);
  try {
    const firstMs = await take('first');
    const firstBytes = storeBytes(store);
    // The files were just written: past the racy-timestamp margin, a scan trusts their stat data.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const changed: number[] = [];
    const known: number[] = [];
    const unchanged: number[] = [];
    for (let i = 0; i < CHANGED_RUNS; i++) {
      change(2 * i);
      changed.push(await take(`change ${i}`));
      change(2 * i + 1);
      known.push(await take(`known change ${i}`, ['d0/f0.txt']));
      unchanged.push(await take(`unchanged ${i}`));
    }
    const changedBytes = (storeBytes(store) - firstBytes) / (2 * CHANGED_RUNS);
    previous = undefined;
    const seenMs = await take('another run', undefined, 'refs/bareagent/runs/bench-2');
    return { spec, firstMs, firstBytes, changed: summarize(changed), known: summarize(known), unchanged: summarize(unchanged), seenMs, changedBytes };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(path.dirname(store), { recursive: true, force: true });
  }
}

export interface IterationCost {
  iterations: number;
  repeats: number;
  on: Summary;
  off: Summary;
}

export async function measureIterations(ctx: BenchContext): Promise<IterationCost> {
  const { iterations, repeats } = ctx.options;
  const server = await ctx.defaultServer();
  const worker = await ctx.worker(server, 'bench-checkpoints');
  const workspace = makeWorkspace(60, 4096);
  const latencies = { on: [] as number[], off: [] as number[] };
  const once = async (mode: 'on' | 'off', n: number, into?: number[]) => {
    const run = await runScripted(server, ctx.model, {
      iterations: n,
      workspace,
      taskQueue: worker.taskQueue,
      input: { stream: false, permissionMode: 'bypass', ...(mode === 'off' ? { checkpoints: false } : {}) },
      prefix: `checkpoints-${mode}`,
      call: writeCall,
    });
    into?.push(...iterationLatencies(run.conversation));
    forgetRequests(ctx.model);
  };
  try {
    ctx.log(`checkpoints: warming up, then ${repeats} × 2 runs of ${iterations} iterations (write_file each)`);
    await once('on', 5);
    await once('off', 5);
    for (let r = 0; r < repeats; r++) {
      await once('on', iterations, latencies.on);
      await once('off', iterations, latencies.off);
    }
  } finally {
    await worker.stop();
    workspace.dispose();
  }
  return { iterations, repeats, on: summarize(latencies.on), off: summarize(latencies.off) };
}

function report(trees: TreeCost[], command: string, iterations?: IterationCost): string {
  const lines = [
    '## Workspace checkpoints',
    '',
    stamp(command),
    '',
    `Load average when it ended: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} on ${os.cpus().length} CPUs (every figure scales with it).`,
    '',
    'One checkpoint = the snapshot of the workspace into its shadow store and the commit on the run\'s ref, in the worker process (src/checkpoints/incremental.ts: a scan that reads 32 files or more packs their blobs into one packfile, fewer are loose objects; no git process), as the `checkpointWorkspace` activity takes it, without the activity round trip. "First" reads every file into a fresh store; "one file changed" is the median of ' +
      `${CHANGED_RUNS} checkpoints that each follow a change to one file: by a stat scan against the store's index (after \`bash\`, MCP calls, jobs), or with its path known (after \`write_file\`/\`edit_file\`); "nothing changed" is a scan that reads no file; "a second run" is the first checkpoint of another run in the same workspace (the store's newest snapshot spares reading). Bytes: the store's size on disk (\`du -sb\`, zlib-compressed objects).`,
    '',
    table(
      ['tree', 'first checkpoint', 'store after it', 'one file changed, scan (p50 / max)', 'one file changed, path known (p50 / max)', 'nothing changed (p50)', 'a second run\'s first', 'store growth per changed checkpoint'],
      trees.map((t) => [t.spec.name, ms(t.firstMs, 0), bytes(t.firstBytes), `${ms(t.changed.p50)} / ${ms(t.changed.max)}`, `${ms(t.known.p50)} / ${ms(t.known.max)}`, ms(t.unchanged.p50), ms(t.seenMs), bytes(t.changedBytes)]),
    ),
  ];
  if (iterations) {
    const added = iterations.on.p50 - iterations.off.p50;
    lines.push(
      '',
      `What it adds to an iteration: ${iterations.repeats} × 2 \`agentRun\` runs of ${iterations.iterations} iterations on an in-process worker, every turn a \`write_file\` in a 60-file workspace, checkpoints on and off (\`checkpoints: false\`), interleaved, \`stream: false\`.`,
      '',
      table(
        ['checkpoints', 'iterations', 'p50', 'p95', 'mean'],
        [
          ['on', iterations.on.n, ms(iterations.on.p50), ms(iterations.on.p95), ms(iterations.on.mean)],
          ['off', iterations.off.n, ms(iterations.off.p50), ms(iterations.off.p95), ms(iterations.off.mean)],
        ],
      ),
      '',
      `A checkpoint adds ${ms(added)} to the median iteration here (on ÷ off: ${(iterations.on.p50 / iterations.off.p50).toFixed(2)}×): the write_file's path known, one blob, the trees on its way and a commit written in the worker, inside the write_file activity itself (no local activity after the round).`,
    );
  }
  return lines.join('\n');
}

export async function checkpoints(ctx: BenchContext): Promise<Block> {
  const trees: TreeCost[] = [];
  for (const spec of TREES) {
    ctx.log(`checkpoints: ${spec.name}`);
    trees.push(await measureTree(spec));
  }
  const iterations = await measureIterations(ctx);
  return { id: 'checkpoints', markdown: report(trees, ctx.command, iterations) };
}

if (require.main === module) {
  (async () => {
    const trees: TreeCost[] = [];
    for (const spec of TREES) trees.push(await measureTree(spec));
    console.log(report(trees, 'npx tsx bench/checkpoints.ts'));
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
