import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

export type Log = (line: string) => void;

export function cachedCliDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'bareagent', `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

/**
 * The Temporal CLI, in this order: $TEMPORAL_CLI; a `temporal` on PATH of v1.5 or later;
 * the cached build; else a build with `go install` into the cache (one process at a time).
 */
export async function findOrBuildTemporalCli(log: Log = (l) => console.error(l), env = process.env): Promise<string> {
  if (env.TEMPORAL_CLI) {
    if (!existsSync(env.TEMPORAL_CLI)) throw new Error(`TEMPORAL_CLI points to ${env.TEMPORAL_CLI}, which does not exist`);
    return env.TEMPORAL_CLI;
  }
  const onPath = await temporalOnPath(env);
  if (onPath) return onPath;
  const cached = path.join(cachedCliDir(env), 'temporal');
  if (existsSync(cached)) return cached;
  if (await hasGo(env)) return buildCli(cachedCliDir(env), log, env);
  return downloadWithSdk(`${cachedCliDir(env)}-sdk-download`, log);
}

async function temporalOnPath(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const { stdout } = await run('temporal', ['--version'], { timeout: 10_000, env });
    return isRecentEnough(stdout) ? 'temporal' : undefined;
  } catch {
    return undefined;
  }
}

/** `temporal version 1.5.1 (Server 1.29.1, ...)`; a source build says 0.0.0-DEV, so its server version decides. */
export function isRecentEnough(versionOutput: string): boolean {
  const cli = /temporal version (\d+)\.(\d+)/.exec(versionOutput);
  if (!cli) return false;
  const [major, minor] = [Number(cli[1]), Number(cli[2])];
  if (major > 1 || (major === 1 && minor >= 5)) return true;
  const server = /Server (\d+)\.(\d+)/.exec(versionOutput);
  return major === 0 && !!server && (Number(server[1]) > 1 || Number(server[2]) >= 29);
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
    log(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)}s: ${binary}`);
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
    `The Temporal CLI ${TEMPORAL_CLI_VERSION} was not found and Go is not installed to build it.\n` +
    `  Either install Go 1.23 or later (https://go.dev/doc/install, or your package manager's "golang" package) and run again,\n` +
    `  or set TEMPORAL_CLI to the path of a temporal binary (v1.5 or later).`;
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
