/** `npm run bench -- [--only overhead,throughput] [--iterations 50] ...`: quick defaults, every loop bounded. */
import { parseArgs } from 'node:util';

export const SECTION_IDS = ['overhead', 'throughput', 'history', 'memory', 'transfer-poll', 'eager', 'tuning', 'bundle', 'sqlite', 'sandbox', 'floor', 'checkpoints', 'parallel-reads', 'sdk-patch', 'tree-reservation', 'events', 'peers'] as const;
export type SectionId = (typeof SECTION_IDS)[number];
/** `peers` runs only on request: it needs its own install (`npm ci` in bench/peers) and takes minutes. */
export const DEFAULT_SECTIONS: readonly SectionId[] = SECTION_IDS.filter((id) => id !== 'peers');

export interface BenchOptions {
  only: SectionId[];
  /** Overhead: iterations per run, and runs per mode. */
  iterations: number;
  repeats: number;
  /** Overhead: iterations of the one long run whose last iterations are compared with its first (0: none). */
  longRun: number;
  /** Throughput: concurrent runs per level, and iterations per run. */
  concurrency: number[];
  runIterations: number;
  /** History growth: run lengths, the compaction threshold (tokens), continue-as-new after this many events. */
  historySizes: number[];
  compactionThreshold: number;
  continueAsNewEvents: number;
  /** Memory: runs left waiting for a human; started in waves of this many (each parked before the next), or all at once. */
  waitingRuns: number;
  waveSize: number | undefined;
  /** Memory: the worker's BAREAGENT_MAX_CACHED_WORKFLOWS; unset, the bench's own environment decides. */
  maxCached: number | undefined;
  /** Memory: the worker's `--max-old-space-size` (MiB, every V8 heap of the process); unset, Node's default. */
  workerHeapMiB: number | undefined;
  /** Config comparisons: the concurrency levels of the worker-tuning section, bundling start-ups per variant. */
  tuningConcurrency: number[];
  startups: number;
  out: string;
  /** Run the dev servers on a SQLite file, as the embedded server does, instead of in memory. */
  persistent: boolean;
  /** Run against a fresh local cluster (`npm run cluster`: Temporal on PostgreSQL) instead of dev servers. */
  cluster: boolean;
}

const USAGE = `npm run bench -- [options]
  --only <ids>               comma-separated sections: ${SECTION_IDS.join(', ')}
                             (default: all but peers, which needs \`npm ci\` in bench/peers first)
  --iterations <n>           overhead: iterations per run (default 50)
  --repeats <n>              overhead: runs per mode (default 3)
  --long-run <n>             overhead: one run of n iterations, its last 70 against its first 50 (default 420, 0: none)
  --concurrency <list>       throughput: concurrent runs (default 1,10,50,100)
  --run-iterations <n>       throughput, eager, tuning: iterations per run (default 10)
  --history-sizes <list>     history growth: iterations per run (default 10,50,200)
  --compaction-threshold <n> history growth: compaction threshold in tokens (default 20000)
  --can-events <n>           history growth: limit.historyCount.suggestContinueAsNew (default 500)
  --waiting-runs <n>         memory: runs waiting for a human (default 100)
  --wave-size <n>            memory: start the runs n at a time, each wave parked before the next (default: all at once)
  --max-cached <n>           memory: BAREAGENT_MAX_CACHED_WORKFLOWS for the worker (default: this environment's, else the SDK's)
  --worker-heap <MiB>        memory: the worker's node --max-old-space-size (default: Node's)
  --tuning-concurrency <list> worker tuning: concurrent runs (default 50,100)
  --startups <n>             bundling: worker start-ups per variant (default 3)
  --persistent               dev servers on a SQLite file (the embedded server's mode) instead of in memory
  --cluster                  a fresh local cluster (npm run cluster: the compose file's server on PostgreSQL)
                             instead of dev servers; dynamic-config variations do not apply (overhead, throughput)
  --out <file>               the report (default BENCHMARKS.md)`;

const list = (value: string): number[] =>
  value.split(',').map((part) => {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n <= 0) throw new Error(`not a positive integer: ${part}`);
    return n;
  });

function positive(value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n > max) throw new Error(`expected an integer from 1 to ${max}, got ${value}`);
  return n;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      iterations: { type: 'string' },
      'long-run': { type: 'string' },
      repeats: { type: 'string' },
      concurrency: { type: 'string' },
      'run-iterations': { type: 'string' },
      'history-sizes': { type: 'string' },
      'compaction-threshold': { type: 'string' },
      'can-events': { type: 'string' },
      'waiting-runs': { type: 'string' },
      'wave-size': { type: 'string' },
      'max-cached': { type: 'string' },
      'worker-heap': { type: 'string' },
      'tuning-concurrency': { type: 'string' },
      startups: { type: 'string' },
      persistent: { type: 'boolean', default: false },
      cluster: { type: 'boolean', default: false },
      out: { type: 'string', default: 'BENCHMARKS.md' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const only = values.only ? values.only.split(',').map((id) => id.trim()) : [...DEFAULT_SECTIONS];
  const unknown = only.filter((id) => !(SECTION_IDS as readonly string[]).includes(id));
  if (unknown.length) throw new Error(`unknown section(s): ${unknown.join(', ')}\n${USAGE}`);
  const bounded = (xs: number[], max: number) => {
    if (xs.some((x) => x > max)) throw new Error(`values above ${max} are not allowed here: ${xs.join(',')}`);
    return xs;
  };
  return {
    only: only as SectionId[],
    iterations: positive(values.iterations, 50, 2000),
    repeats: positive(values.repeats, 3, 50),
    longRun: values['long-run'] === '0' ? 0 : positive(values['long-run'], 420, 2000),
    concurrency: bounded(values.concurrency ? list(values.concurrency) : [1, 10, 50, 100], 1000),
    runIterations: positive(values['run-iterations'], 10, 500),
    historySizes: bounded(values['history-sizes'] ? list(values['history-sizes']) : [10, 50, 200], 1000),
    compactionThreshold: positive(values['compaction-threshold'], 20_000, 10_000_000),
    continueAsNewEvents: positive(values['can-events'], 500, 100_000),
    waitingRuns: positive(values['waiting-runs'], 100, 1000),
    waveSize: values['wave-size'] === undefined ? undefined : positive(values['wave-size'], 1, 1000),
    maxCached: values['max-cached'] === undefined ? undefined : positive(values['max-cached'], 1, 100_000),
    workerHeapMiB: values['worker-heap'] === undefined ? undefined : positive(values['worker-heap'], 1, 65_536),
    tuningConcurrency: bounded(values['tuning-concurrency'] ? list(values['tuning-concurrency']) : [50, 100], 1000),
    startups: positive(values.startups, 3, 20),
    persistent: values.persistent ?? false,
    cluster: values.cluster ?? false,
    out: values.out ?? 'BENCHMARKS.md',
  };
}
