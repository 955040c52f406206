/**
 * What the command sandbox costs per command: `true` through `runShell` with bubblewrap (plus
 * the pids cgroup and the rlimits wrapper) and with BAREAGENT_SANDBOX=off, interleaved so that
 * drift in the machine's load hits both alike. `npm run bench -- --only sandbox`, or alone:
 * `npx tsx bench/sandbox.ts`.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resetSandboxSettings } from '../src/activities/sandbox/sandbox-config';
import { runShell } from '../src/activities/shell';
import type { BenchContext } from './context';
import { stamp, table, type Block } from './report';
import { ms, summarize, type Summary } from './stats';

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

function report(cost: SandboxCost, command: string): string {
  const row = (name: string, s: Summary) => [name, s.n, ms(s.p50), ms(s.p95), ms(s.mean), ms(s.max)];
  return [
    '## The command sandbox',
    '',
    stamp(command),
    '',
    `\`true\` through \`runShell\` (src/activities/shell.ts), ${cost.sandboxed.n} times each way, interleaved, after ${WARM_UP} warm-up runs.`,
    '',
    table(['mode', 'n', 'p50', 'p95', 'mean', 'max'], [row('bubblewrap', cost.sandboxed), row('BAREAGENT_SANDBOX=off', cost.off)]),
    '',
    `Cost of the sandbox per command: p50 +${ms(cost.sandboxed.p50 - cost.off.p50)}, p95 +${ms(cost.sandboxed.p95 - cost.off.p95)}.`,
  ].join('\n');
}

export async function sandbox(ctx: BenchContext): Promise<Block> {
  const cost = await measureSandboxCost();
  ctx.log(`sandbox: p50 ${ms(cost.sandboxed.p50)} sandboxed vs ${ms(cost.off.p50)} off`);
  return { id: 'sandbox', markdown: report(cost, ctx.command) };
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
