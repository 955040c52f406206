import { execFile, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { acquireLock, type Log } from '../server/temporal-cli';

const run = promisify(execFile);

export interface GoBuild {
  /** Module path and version, e.g. go.temporal.io/server@v1.29.2. */
  module: string;
  version: string;
  /** Package path inside the module → name of the installed binary. */
  binaries: Record<string, string>;
  /** Files or folders of the module's source copied beside the binaries (same relative path). */
  files: string[];
  /** The cache folder's name under ~/.cache/bareagent. */
  cacheName: string;
}

export function cacheDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'bareagent', name);
}

/**
 * The cached build of some Go binaries, or a `go install` of them (one process at a time, into a
 * folder renamed into place when complete, so an interrupted build is simply done again).
 */
export async function findOrBuildGo(build: GoBuild, log: Log, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = cacheDir(build.cacheName, env);
  if (existsSync(dir)) return dir;
  mkdirSync(path.dirname(dir), { recursive: true });
  const release = await acquireLock(`${dir}.lock`, log);
  try {
    if (existsSync(dir)) return dir;
    const go = await findGo(env);
    const partial = `${dir}.partial`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    const started = Date.now();
    log(`Building ${build.module}@${build.version} with Go into ${dir} (first run only; 5-15 minutes on a small machine)...`);
    const ticker = setInterval(() => log(`  ...still building (${Math.round((Date.now() - started) / 1000)}s)`), 30_000);
    try {
      const gobin = path.join(partial, '.gobin');
      await goInstall(go, Object.keys(build.binaries).map((pkg) => `${build.module}/${pkg}@${build.version}`), gobin, env);
      for (const [pkg, name] of Object.entries(build.binaries)) renameSync(path.join(gobin, path.basename(pkg)), path.join(partial, name));
      rmSync(gobin, { recursive: true, force: true });
      const { stdout } = await run(go, ['mod', 'download', '-json', `${build.module}@${build.version}`], { env, maxBuffer: 1 << 20 });
      const source = (JSON.parse(stdout) as { Dir: string }).Dir;
      for (const file of build.files) {
        cpSync(path.join(source, file), path.join(partial, file), { recursive: true });
      }
      makeWritable(partial); // the module cache is read-only, and so would be the copies
    } finally {
      clearInterval(ticker);
    }
    renameSync(partial, dir);
    log(`Built ${build.module}@${build.version} in ${Math.round((Date.now() - started) / 1000)}s`);
    return dir;
  } finally {
    release();
  }
}

async function findGo(env: NodeJS.ProcessEnv): Promise<string> {
  for (const candidate of ['go', '/usr/local/go/bin/go']) {
    try {
      await run(candidate, ['version'], { env, timeout: 10_000 });
      return candidate;
    } catch {
      // try the next
    }
  }
  throw new Error(
    'Go is needed once, to build the Temporal server from its source (no Docker here): install Go 1.25 or later\n' +
      '  (https://go.dev/doc/install, or your package manager\'s "golang" package) and run again.',
  );
}

function goInstall(go: string, packages: string[], gobin: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('nice', ['-n', '10', go, 'install', ...packages], {
      env: { ...env, GOBIN: gobin, CGO_ENABLED: env.CGO_ENABLED ?? '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${packages.join(' ')} failed (exit ${code}):\n${stderr.slice(-4000)}`))));
  });
}

function makeWritable(target: string): void {
  chmodSync(target, statSync(target).mode | 0o200);
  if (!statSync(target).isDirectory()) return;
  for (const entry of readdirSync(target)) makeWritable(path.join(target, entry));
}
