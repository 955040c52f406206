import type { Command } from 'commander';
import { visibleJson, visibleText } from '../../common/visible-text';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import pc from 'picocolors';
import { providerConfigFromEnv } from '../../connection/provider-config';
import { DurationString } from '../../common/input';
import { hasLiveWorker } from '../../runs/live-pollers';
import { openStack } from '../local-stack';
import type { LocalWorker } from '../local-worker';
import { localWorkerModule, modelAloneModule } from '../load-on-use';
import { preflight } from '../../doctor/run-doctor';
import { temporalProfile } from '../../connection/temporal-profile';
import { EXIT } from '../../runs/run-outcome';
import { UsageError } from '../../runs/usage-error';
import { isProfileName, unknownProfileMessage } from '../../common/profiles';
import { formatResults, parseMinPass, seconds, summarise, summariseByMode } from '../../eval/report';
import { loadSuite, type EvalTask } from '../../eval/suite';
import { runTrial, type TrialResult, type TrialSettings } from '../../eval/trial';

export interface EvalFlags {
  trials?: string;
  concurrency?: string;
  /** Machine output: the report as JSON on stdout instead of the table. */
  json?: boolean;
  /** The report written to this file, rewritten after every trial. */
  jsonFile?: string;
  minPass?: string;
  model?: string;
  system?: string;
  task?: string[];
  maxIterations?: string;
  maxWallClock?: string;
  maxOutputTokens?: string;
  temperature?: string;
  profile?: string;
  stream?: boolean;
  /** `model-alone`: also ask the model once per trial, without the loop, as the baseline. */
  baseline?: string;
  /** `false` (`--no-loop`): only the baseline's trials. */
  loop?: boolean;
}

const BASELINES = ['model-alone'] as const;

const log = (line: string) => console.error(pc.dim(line));

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`eval: ${name} must be a whole number, 1 or more (got "${raw}")`);
  return value;
}

function temperature(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 2) throw new UsageError(`eval: --temperature must be a number from 0 to 2 (got "${raw}")`);
  return value;
}

/**
 * `bareagent eval <dir>`: every task of the suite, k trials each, as ordinary durable runs on the
 * server (each one a workflow to open in the Web UI, follow or fork), a few at a time.
 */
export async function evalCommand(dir: string, flags: EvalFlags): Promise<number> {
  const tasks = loadSuite(dir, flags.task ?? []);
  const trials = positive('--trials', flags.trials, 1);
  const concurrency = positive('--concurrency', flags.concurrency, 1);
  const minPass = flags.minPass === undefined ? undefined : parseMinPass(flags.minPass);
  if (flags.minPass !== undefined && minPass === undefined) throw new UsageError(`eval: --min-pass must be a fraction such as 0.8 or a percentage such as 80% (got "${flags.minPass}")`);
  if (flags.profile !== undefined && !isProfileName(flags.profile)) throw new UsageError(`eval: --profile: ${unknownProfileMessage(flags.profile)}`);
  if (flags.baseline !== undefined && !(BASELINES as readonly string[]).includes(flags.baseline)) throw new UsageError(`eval: --baseline must be one of ${BASELINES.join(', ')} (got "${flags.baseline}")`);
  if (flags.loop === false && flags.baseline === undefined) throw new UsageError('eval: --no-loop needs --baseline model-alone (there would be nothing to run)');
  const maxWallClock = flags.maxWallClock ?? '5m';
  if (!DurationString.safeParse(maxWallClock).success) throw new UsageError(`eval: --max-wall-clock must be a duration such as "5m" (got "${maxWallClock}")`);

  // As `bareagent run`: what a new machine lacks (the Temporal CLI, bubblewrap) is fetched first.
  const embedded = !temporalProfile().address;
  if (embedded) await preflight('bareagent eval', { cli: true, sandbox: true, tests: false, postgres: false });
  const stack = await openStack({ embedded: true, log, background: true });
  let worker: LocalWorker | undefined;
  try {
    const { client, config } = stack;
    if (!(await hasLiveWorker(client, config.namespace, config.taskQueue))) {
      log(`No live worker polls "${config.taskQueue}": starting one in this process...`);
      if (!embedded) await preflight('A worker in this process', { cli: false, sandbox: true, tests: false, postgres: false });
      worker = await localWorkerModule().startLocalWorker(config, config.taskQueue, providerConfigFromEnv(), log);
    }
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
    const settings: TrialSettings = {
      taskQueue: config.taskQueue,
      maxIterations: positive('--max-iterations', flags.maxIterations, 15),
      maxWallClock,
      stream: flags.stream !== false,
      idPrefix: `eval-${path.basename(path.resolve(dir))}-${stamp}`,
      ...(flags.model ? { model: flags.model } : {}),
      ...(flags.system !== undefined ? { systemPrompt: flags.system } : {}),
      ...(flags.maxOutputTokens ? { maxOutputTokens: positive('--max-output-tokens', flags.maxOutputTokens, 1) } : {}),
      ...(flags.temperature !== undefined ? { temperature: temperature(flags.temperature) } : {}),
      ...(flags.profile !== undefined ? { profile: flags.profile } : {}),
    };
    const modes: Array<TrialResult['mode']> = [...(flags.baseline ? ['model-alone' as const] : []), ...(flags.loop === false ? [] : ['loop' as const])];
    // Task by task, the baseline first: an eval stopped half-way still compares the tasks it reached.
    const jobs = tasks.flatMap((task) => modes.flatMap((mode) => Array.from({ length: trials }, (_, i) => ({ task, trial: i + 1, mode }))));
    const provider = providerConfigFromEnv();
    log(`Eval: ${tasks.length} tasks × ${trials} trials (${modes.join(' and ')}), ${concurrency} at a time; workflow ids ${settings.idPrefix}-<task>-<trial>`);
    const progress = await Progress.open(jobs.length);
    const started = Date.now();
    const finished: TrialResult[] = [];
    // Rewritten after every trial: an eval stopped half-way still leaves what it measured.
    const report = () => ({
        date: new Date(started).toISOString(),
        suite: path.resolve(dir),
        model: flags.model ?? process.env.BAREAGENT_MODEL ?? null,
        systemPrompt: flags.system === undefined ? 'default' : flags.system === '' ? 'none' : 'custom',
        trialsPerTask: trials,
        concurrency,
        maxIterations: settings.maxIterations,
        maxWallClock: settings.maxWallClock,
        temperature: settings.temperature ?? (settings.profile !== undefined ? `profile ${settings.profile}` : 'server default'),
        profile: settings.profile ?? 'none',
        modes,
        complete: finished.length === jobs.length,
        wallMs: Date.now() - started,
        summary: summarise(finished),
        summaryByMode: summariseByMode(finished),
        results: finished,
    });
    const writeJson = () => {
      if (flags.jsonFile) writeFileSync(flags.jsonFile, `${JSON.stringify(report(), null, 2)}\n`);
    };
    const results = await pool(jobs, concurrency, async ({ task, trial, mode }) => {
      progress.start(task, trial, mode);
      const result = await (mode === 'loop' ? runTrial(client, task, trial, settings) : modelAloneModule().runModelAlone(provider, task, trial, settings)).catch((err: unknown) => failedTrial(task, trial, mode, err));
      finished.push(result);
      writeJson();
      progress.finish(result);
      return result;
    });
    progress.close();
    console.log(flags.json ? visibleJson(report(), undefined, 2) : formatResults(results));
    // --min-pass judges the loop; the baseline's own trials count only when it ran alone.
    const summary = summarise(flags.loop === false ? results : results.filter((r) => r.mode === 'loop'));
    if (flags.jsonFile) log(`Wrote ${flags.jsonFile}`);
    if (minPass !== undefined && summary.passRate < minPass) {
      console.error(pc.red(`Pass rate ${Math.round(summary.passRate * 100)}% is under --min-pass ${Math.round(minPass * 100)}%`));
      return EXIT.failed;
    }
    return EXIT.ok;
  } finally {
    await worker?.stop();
    await stack.close();
  }
}

/** A trial the eval could not run to its end (the server went away, a query failed): a fail, with why. */
function failedTrial(task: EvalTask, trial: number, mode: TrialResult['mode'], err: unknown): TrialResult {
  return {
    task: task.name,
    trial,
    mode,
    workflowId: '',
    workspace: '',
    pass: false,
    status: 'error',
    stopReason: 'eval_error',
    iterations: 0,
    inputTokens: 0,
    outputTokens: 0,
    wallMs: 0,
    error: err instanceof Error ? err.message : String(err),
  };
}

/** Runs `work` over `items`, at most `limit` at once; results in the items' order. */
async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** A bar redrawn in place on a terminal; elsewhere (CI, a pipe) one line a finished trial. */
class Progress {
  private done = 0;
  private passed = 0;
  private readonly running = new Set<string>();
  private readonly started = Date.now();
  private ticker: NodeJS.Timeout | undefined;

  private constructor(
    private readonly total: number,
    private readonly redraw: ((text: string) => void) & { done?: () => void } | undefined,
  ) {
    if (redraw) {
      this.ticker = setInterval(() => this.draw(), 1000);
      this.ticker.unref();
    }
  }

  static async open(total: number): Promise<Progress> {
    if (!process.stderr.isTTY) return new Progress(total, undefined);
    const { createLogUpdate } = await import('log-update');
    return new Progress(total, createLogUpdate(process.stderr));
  }

  private static key(task: string, trial: number, mode: TrialResult['mode']): string {
    return `${task}#${trial}${mode === 'loop' ? '' : ` ${mode}`}`;
  }

  start(task: EvalTask, trial: number, mode: TrialResult['mode']): void {
    this.running.add(Progress.key(task.name, trial, mode));
    this.draw();
  }

  finish(result: TrialResult): void {
    this.running.delete(Progress.key(result.task, result.trial, result.mode));
    this.done += 1;
    if (result.pass) this.passed += 1;
    if (!this.redraw) {
      const mark = result.pass ? 'pass' : 'FAIL';
      log(`[${this.done}/${this.total}] ${visibleText(result.task)} #${result.trial}${result.mode === 'loop' ? '' : ` (${result.mode})`}: ${mark} (${result.iterations} iterations, ${seconds(result.wallMs)}, ${visibleText(result.stopReason)})`);
    }
    this.draw();
  }

  private draw(): void {
    if (!this.redraw) return;
    const width = 30;
    const filled = Math.round((this.done / this.total) * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    const elapsed = seconds(Date.now() - this.started);
    this.redraw(`${bar} ${this.done}/${this.total} trials · ${this.passed} passed · ${elapsed}${this.running.size ? ` · running ${[...this.running].join(', ')}` : ''}`);
  }

  close(): void {
    clearInterval(this.ticker);
    this.draw();
    this.redraw?.done?.();
  }
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerEval(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('eval')
    .argument('<dir>', 'a suite: a directory of tasks, each a directory with task.json and workspace/ (or one such task)')
    .option('--trials <k>', 'trials of each task (default 1)')
    .option('--concurrency <n>', 'trials run at once (default 1)')
    .option('--json', 'print every trial and the totals as JSON on stdout, in place of the table')
    .option('--json-file <file>', 'write every trial and the totals to this file as JSON (rewritten after each trial)')
    .option('--min-pass <fraction>', "exit 1 when the loop's pass rate is under this, e.g. 0.8 or 80%")
    .option('-m, --model <name>', 'model name (default: BAREAGENT_MODEL on the worker)')
    .option('--system <text>', 'system prompt for every trial instead of the default ("" sends none)')
    .option('--task <name>', 'only this task (repeatable)', collect)
    .option('--max-iterations <n>', "iteration limit of a trial whose task sets none (default 15)")
    .option('--max-wall-clock <duration>', 'time budget of a trial whose task sets none (default 5m)')
    .option('--max-output-tokens <n>', "max_tokens of each model call (a small local model's reply otherwise runs long)")
    .option('--profile <name>', 'a model profile for every trial, e.g. small-local (its settings under the flags above)')
    .option('--temperature <t>', "sampling temperature of each model call, 0-2 (default: the server's)")
    .option('--no-stream', 'call the model without streaming')
    .option('--baseline <mode>', 'also run the baseline: model-alone asks the model once per trial for the finished code, applies it and runs the same check')
    .option('--no-loop', 'with --baseline: run only the baseline')
    .description('run a suite of tasks as durable runs, k trials each, and check each trial\'s workspace')
    .addHelpText(
      'after',
      `
Each trial copies the task's workspace/ to a fresh temporary directory (kept, printed in the JSON)
and runs an ordinary agentRun there (permission mode auto unless the task says otherwise; a question
that needs a human is denied). When it ends, the task's check command runs in the same sandbox as
the run's commands; the trial passes when it exits 0 (and the final answer matches the task's
answer pattern, when it has one). Workflow ids are eval-<suite>-<time>-<task>-<trial>: open them in
the Web UI, or fork one. --baseline model-alone adds, per task and trial, one request to the
model without the loop (the prompt and the files it names, asking for the finished code; the
code blocks replace the functions they define, or the file), checked the same way, and prints
both side by side. With TEMPORAL_ADDRESS unset the embedded server is started, and a worker in
this process when none polls.

Examples:
  bareagent eval evals/coding
  bareagent eval evals/coding --trials 3 --concurrency 2 --json-file evals.json --min-pass 0.5
  bareagent eval evals/coding --task fix-greet --system ""      # without a system prompt
  bareagent eval evals/functions --profile small-local --temperature 0 --baseline model-alone`,
    )
    .action((dir: string, flags: EvalFlags) => settle(evalCommand(dir, flags)));
}
