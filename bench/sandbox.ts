/**
 * What the command sandbox costs, measured two ways, sandbox on and BAREAGENT_SANDBOX=off
 * interleaved so that drift in the machine's load hits both alike:
 * 1. per command: `true` through `runShell` with bubblewrap (plus the pids cgroup and the
 *    rlimits wrapper) and without;
 * 2. its share of the iteration time: `agentRun` runs on an in-process worker where every model
 *    turn asks for one `bash` call of `true` (the activity reads the sandbox settings from
 *    process.env at call time, so switching the variable between runs switches the mode).
 * `npm run bench -- --only sandbox`, or the per-command part alone: `npx tsx bench/sandbox.ts`.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resetSandboxSettings } from '../src/sandbox/sandbox-config';
import { runShell } from '../src/sandbox/shell';
import { forgetRequests, runScripted } from './agent-runs';
import type { BenchContext } from './context';
import { iterationLatencies, makeWorkspace, type ScriptedCall } from './conversation';
import { NoiseMeter, describeNoise, type Noise } from './noise';
import { stamp, table, type Block } from './report';
import { ms, summarize, type Summary } from './stats';
import { statusQuery } from '../src/common/contract';

const RUNS = 200;
const WARM_UP = 10;

export interface SandboxCost {
  sandboxed: Summary;
  off: Summary;
}

export async function measureSandboxCost(runs = RUNS): Promise<SandboxCost> {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'bench-sandbox-')));
  const saved = process.env.BAREAGENT_SANDBOX;
  const once = async (mode: 'on' | 'off'): Promise<number> => {
    process.env.BAREAGENT_SANDBOX = mode;
    resetSandboxSettings(); // the bwrap probe stays cached, as in a worker
    const started = process.hrtime.bigint();
    const result = await runShell('true', {
      workspace,
      sandbox: { network: 'none', readOnlyPaths: [], writableWorkspace: true },
      timeoutMs: 30_000,
      maxChars: 1000,
    });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.exitCode !== 0 || result.sandbox !== (mode === 'on' ? 'bubblewrap' : 'off')) {
      throw new Error(`sandbox bench: unexpected result ${JSON.stringify(result)}`);
    }
    return elapsed;
  };
  try {
    for (let i = 0; i < WARM_UP; i++) {
      await once('on');
      await once('off');
    }
    const on: number[] = [];
    const off: number[] = [];
    for (let i = 0; i < runs; i++) {
      on.push(await once('on'));
      off.push(await once('off'));
    }
    return { sandboxed: summarize(on), off: summarize(off) };
  } finally {
    if (saved === undefined) delete process.env.BAREAGENT_SANDBOX;
    else process.env.BAREAGENT_SANDBOX = saved;
    resetSandboxSettings();
    rmSync(workspace, { recursive: true, force: true });
  }
}

type Mode = 'on' | 'off';

/** Every turn runs `true`; the timeout differs per turn only so that the loop detector sees a new action each time. */
export const bashTrueCall: ScriptedCall = (turn) => ({ name: 'bash', arguments: { command: 'true', timeout: 30 + turn } });

export interface IterationShare {
  iterations: number;
  repeats: number;
  on: Summary;
  off: Summary;
}

/**
 * `repeats` `agentRun` runs per mode of `iterations` iterations (one bash `true` each),
 * `stream: false`, `permissionMode: 'auto'`, interleaved, after one warm-up run each. The worker
 * is in-process: its bash activity reads BAREAGENT_SANDBOX through sandboxSettings(), reset here
 * before every run; each run's status says which enforcement its commands got.
 */
export async function measureIterationShare(ctx: BenchContext): Promise<IterationShare> {
  const { iterations, repeats } = ctx.options;
  const server = await ctx.defaultServer();
  const worker = await ctx.worker(server, 'bench-sandbox');
  const workspace = makeWorkspace(1, 64);
  const saved = process.env.BAREAGENT_SANDBOX;
  const latencies: Record<Mode, number[]> = { on: [], off: [] };
  const once = async (mode: Mode, n: number, into?: number[]) => {
    process.env.BAREAGENT_SANDBOX = mode;
    resetSandboxSettings(); // the bwrap probe stays cached, as in a worker
    const run = await runScripted(server, ctx.model, {
      iterations: n,
      workspace,
      taskQueue: worker.taskQueue,
      input: { stream: false, permissionMode: 'auto' },
      prefix: `sandbox-${mode}`,
      call: bashTrueCall,
    });
    const status = await run.handle.query(statusQuery);
    const expected = mode === 'on' ? 'bubblewrap' : 'off';
    if (status.sandbox.enforcement !== expected) {
      throw new Error(`sandbox bench: ${run.handle.workflowId} ran its commands with "${status.sandbox.enforcement}", expected "${expected}"`);
    }
    into?.push(...iterationLatencies(run.conversation));
    forgetRequests(ctx.model);
  };
  try {
    ctx.log(`sandbox: warming up, then ${repeats} × 2 runs of ${iterations} iterations (bash true each)`);
    await once('on', 5);
    await once('off', 5);
    for (let r = 0; r < repeats; r++) {
      await once('on', iterations, latencies.on);
      await once('off', iterations, latencies.off);
    }
  } finally {
    if (saved === undefined) delete process.env.BAREAGENT_SANDBOX;
    else process.env.BAREAGENT_SANDBOX = saved;
    resetSandboxSettings();
    await worker.stop();
    workspace.dispose();
  }
  return { iterations, repeats, on: summarize(latencies.on), off: summarize(latencies.off) };
}

/** (p50 on − p50 off) / p50 on: the part of an iteration's median the sandbox accounts for. */
export const shareOf = (share: IterationShare): number => (share.on.p50 - share.off.p50) / share.on.p50;

const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '–');

function report(cost: SandboxCost, command: string, share?: IterationShare, noise?: Noise): string {
  const row = (name: string, s: Summary) => [name, s.n, ms(s.p50), ms(s.p95), ms(s.mean), ms(s.max)];
  const lines = [
    '## The command sandbox',
    '',
    stamp(command),
    '',
    `Per command: \`true\` through \`runShell\` (src/sandbox/shell.ts), ${cost.sandboxed.n} times each way, interleaved, after ${WARM_UP} warm-up runs.`,
    '',
    table(['mode', 'n', 'p50', 'p95', 'mean', 'max'], [row('bubblewrap', cost.sandboxed), row('BAREAGENT_SANDBOX=off', cost.off)]),
    '',
    `Cost of the sandbox per command: p50 +${ms(cost.sandboxed.p50 - cost.off.p50)}, p95 +${ms(cost.sandboxed.p95 - cost.off.p95)}.`,
  ];
  if (share) {
    const s = shareOf(share);
    const itRow = (name: string, x: Summary) => [name, x.n, ms(x.p50), ms(x.p95), ms(x.mean)];
    lines.push(
      '',
      `The share of the iteration time: ${share.repeats} \`agentRun\` runs per mode of ${share.iterations} iterations, each model turn one \`bash\` call of \`true\` ` +
        '(`stream: false`, `permissionMode: \'auto\'`, in-process worker), interleaved, after one warm-up run each; every run\'s `status` confirmed the enforcement. ' +
        'An iteration is the time between two consecutive requests to the scripted model (which answers at once).',
      '',
      table(['mode', 'iterations', 'p50', 'p95', 'mean'], [itRow('bubblewrap', share.on), itRow('BAREAGENT_SANDBOX=off', share.off)]),
      '',
      `The sandbox's share of an iteration: (p50 on − p50 off) / p50 on = (${ms(share.on.p50)} − ${ms(share.off.p50)}) / ${ms(share.on.p50)} = **${pct(s)}** ` +
        `(p95: +${ms(share.on.p95 - share.off.p95)}). The per-command p50 difference alone would be ${pct((cost.sandboxed.p50 - cost.off.p50) / share.on.p50)} of the sandboxed iteration's p50.`,
    );
  }
  if (noise) lines.push('', `Noise (both measurements): ${describeNoise(noise)}.`);
  return lines.join('\n');
}

export async function sandbox(ctx: BenchContext): Promise<Block> {
  const meter = new NoiseMeter();
  const cost = await measureSandboxCost();
  ctx.log(`sandbox: p50 ${ms(cost.sandboxed.p50)} sandboxed vs ${ms(cost.off.p50)} off`);
  const share = await measureIterationShare(ctx);
  ctx.log(`sandbox: iteration p50 ${ms(share.on.p50)} on vs ${ms(share.off.p50)} off, share ${pct(shareOf(share))}`);
  const noise = meter.stop();
  return { id: 'sandbox', markdown: report(cost, ctx.command, share, noise) };
}

async function main(): Promise<void> {
  const cost = await measureSandboxCost();
  console.log(report(cost, 'npx tsx bench/sandbox.ts'));
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
