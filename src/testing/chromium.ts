import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findBinary } from '../sandbox/find-binary';
import type { Log } from '../server/temporal-cli';

const run = promisify(execFile);

/**
 * The real browser of the page tests (the Web UI and the approvers' page, driven by playwright-core):
 * BAREAGENT_CHROMIUM; a system Chromium on PATH (the distribution's, kept up to date with its
 * security fixes); else the headless Chromium npm's `@sparticuz/chromium` (a devDependency) carries,
 * unpacked once into the cache. Finding needs no unpacking (for the doctor).
 */
export type ChromiumSource =
  | { kind: 'override' | 'system'; binary: string }
  | { kind: 'npm-cached'; binary: string; version: string }
  | { kind: 'npm'; version: string; packageDir: string }
  | { kind: 'none'; problem: string };

export const SPARTICUZ = '@sparticuz/chromium';
const SYSTEM_NAMES = ['chromium', 'chromium-browser'];

/** The package's folder and version, when `npm ci` installed it (it is a devDependency). */
function sparticuzPackage(): { packageDir: string; version: string } | undefined {
  try {
    // Its exports name only the entry point (build/index.js): the package is the folder above.
    const packageDir = path.dirname(path.dirname(require.resolve(SPARTICUZ)));
    const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
    return existsSync(path.join(packageDir, 'bin', 'chromium.br')) ? { packageDir, version } : undefined;
  } catch {
    return undefined;
  }
}

/** Where the package's Chromium is unpacked: one folder per version, shared by every suite and run. */
export function cachedChromiumDir(version: string, env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'bareagent', `chromium-${version}`);
}

export function locateChromium(env: NodeJS.ProcessEnv = process.env): ChromiumSource {
  const override = env.BAREAGENT_CHROMIUM?.trim();
  if (override) {
    return existsSync(override) ? { kind: 'override', binary: override } : { kind: 'none', problem: `BAREAGENT_CHROMIUM=${override} is not a file` };
  }
  for (const name of SYSTEM_NAMES) {
    const found = findBinary(name, env.PATH);
    if (found) return { kind: 'system', binary: found };
  }
  const pkg = sparticuzPackage();
  if (!pkg) return { kind: 'none', problem: `no chromium on PATH, and npm's ${SPARTICUZ} is not installed (npm ci installs it)` };
  const binary = path.join(cachedChromiumDir(pkg.version, env), 'chromium');
  return existsSync(binary) ? { kind: 'npm-cached', binary, version: pkg.version } : { kind: 'npm', ...pkg };
}

export function describeChromiumSource(source: ChromiumSource, env: NodeJS.ProcessEnv = process.env): string {
  switch (source.kind) {
    case 'override':
      return `BAREAGENT_CHROMIUM=${source.binary}`;
    case 'system':
      return `system Chromium: ${source.binary}`;
    case 'npm-cached':
      return `npm's ${SPARTICUZ} ${source.version}, unpacked: ${source.binary}`;
    case 'npm':
      return `no chromium on PATH: npm's ${SPARTICUZ} ${source.version} will be unpacked on first use (seconds) into ${cachedChromiumDir(source.version, env)}`;
    case 'none':
      return source.problem;
  }
}

/**
 * The browser's binary, unpacked first when it comes from the package: the package writes its
 * three archives (the browser, its fonts, SwiftShader) into os.tmpdir(), so it is run in a child
 * (it is an ES module) with TMPDIR a fresh folder beside the cache, and that folder is renamed into
 * place whole: two suites starting at once never see a half-written browser, and a second rename
 * loses to the first harmlessly.
 */
export async function ensureChromium(env: NodeJS.ProcessEnv, log: Log): Promise<ChromiumSource> {
  const source = locateChromium(env);
  if (source.kind !== 'npm') return source;
  const dir = cachedChromiumDir(source.version, env);
  mkdirSync(path.dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.partial-`);
  const started = Date.now();
  try {
    const script = `import(${JSON.stringify(path.join(source.packageDir, 'build', 'index.js'))}).then(async (m) => process.stdout.write(await m.default.executablePath()))`;
    const { stdout } = await run(process.execPath, ['-e', script], { env: { ...process.env, TMPDIR: staging }, timeout: 180_000 });
    if (stdout.trim() !== path.join(staging, 'chromium')) throw new Error(`${SPARTICUZ} unpacked its browser to ${stdout.trim()}, not into ${staging}`);
    writeFileSync(path.join(staging, 'fonts', 'fonts.conf'), fontsConf(dir));
    try {
      renameSync(staging, dir);
    } catch (err) {
      if (!existsSync(path.join(dir, 'chromium'))) throw err; // else another process won the rename: its copy is the same
    }
  } catch (err) {
    log(`Could not unpack ${SPARTICUZ}: ${(err as Error).message}`);
    return { kind: 'none', problem: `npm's ${SPARTICUZ} ${source.version} could not be unpacked: ${(err as Error).message}` };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  log(`Chromium from npm's ${SPARTICUZ} ${source.version} unpacked in ${((Date.now() - started) / 1000).toFixed(1)}s into ${dir}`);
  return { kind: 'npm-cached', binary: path.join(dir, 'chromium'), version: source.version };
}

/**
 * The flags for playwright-core's launch, the same for both browsers: no sandbox (the tests run as
 * root in CI), no GPU, and none of the background networking that keeps a page from going
 * network-idle on a machine without internet. Not the package's own serverless flags: its
 * `--single-process` closes the page when the Web UI navigates.
 */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * The package's fonts.conf names /tmp/fonts (where it unpacks on a serverless host): with no font
 * found, Chromium aborts on the first text that needs a fallback font. Ours names its bundled fonts
 * where they are now, and the system's font folders when there are any.
 */
function fontsConf(dir: string): string {
  const dirs = [path.join(dir, 'fonts'), '/usr/share/fonts', '/usr/local/share/fonts'];
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    '<fontconfig>',
    ...dirs.map((d) => `  <dir>${d}</dir>`),
    '  <dir prefix="xdg">fonts</dir>',
    `  <cachedir>${path.join(dir, 'fonts-cache')}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
}

/** The environment the package's browser needs: its fonts' config, unpacked beside it. */
export function chromiumEnv(source: ChromiumSource): Record<string, string> {
  if (source.kind !== 'npm-cached') return {};
  return { FONTCONFIG_PATH: path.join(path.dirname(source.binary), 'fonts') };
}
