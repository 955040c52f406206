import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A user's project, as `npm i bareagent-temporal` leaves it: the package packed from this
 * repository (`npm pack`, which builds dist/ at prepack), installed from its tarball into an empty
 * project that already has the Temporal SDK and zod, as every Temporal user's project does.
 */
export const ROOT = path.resolve(__dirname, '../..');
export const SDK_VERSION = '1.23.0';
/** What the user's project has before it installs the package, from the registry. */
export const USER_DEPENDENCIES = [`@temporalio/client@${SDK_VERSION}`, `@temporalio/worker@${SDK_VERSION}`, `@temporalio/workflow@${SDK_VERSION}`, 'zod'];
/** The libraries the package and the user's code must share: one copy each, the user's. */
export const SHARED = ['@temporalio/activity', '@temporalio/client', '@temporalio/common', '@temporalio/worker', '@temporalio/workflow', 'zod'];

/** Run as root (CI is), the user's steps run as `nobody`: no root anywhere in what a user does. */
export const NORMAL_USER = process.getuid?.() === 0 ? { uid: 65534, name: 'nobody' } : undefined;

export interface Ran {
  code: number | null;
  out: string;
  seconds: number;
}

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, options: { echo?: boolean; asUser?: boolean } = {}): Promise<Ran> {
  const started = Date.now();
  const [file, argv] = options.asUser && NORMAL_USER ? ['setpriv', [`--reuid=${NORMAL_USER.uid}`, `--regid=${NORMAL_USER.uid}`, '--clear-groups', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const take = (chunk: Buffer) => {
      out += chunk.toString();
      if (options.echo) process.stdout.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, seconds: (Date.now() - started) / 1000 }));
  });
}

/** A new user's environment: PATH and the locale kept, nothing of ours (no TEMPORAL_CLI, no BAREAGENT_*). */
export function userEnv(home: string, npmCache: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'PYENV_ROOT', 'NODE_EXTRA_CA_CERTS', 'http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'no_proxy'];
  const env: NodeJS.ProcessEnv = { HOME: home, NO_COLOR: '1', CI: '1', npm_config_cache: npmCache, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  for (const name of keep) if (process.env[name]) env[name] = process.env[name];
  return { ...env, ...extra };
}

export interface ConsumerProject {
  dir: string;
  home: string;
  tarball: string;
  /** The environment the user's own commands run with (the empty HOME, an npm cache of its own). */
  env: NodeJS.ProcessEnv;
  problems: string[];
}

/**
 * Packs the package into `dir`, makes `dir/project` with the user's dependencies, then installs the
 * tarball there. npm's download cache is the invoking user's (the packages are not what is tested);
 * the install runs as the invoking user, then the folder is handed to the normal user.
 */
export async function consumerProject(dir: string): Promise<ConsumerProject> {
  const problems: string[] = [];
  const pack = await run('npm', ['pack', '--pack-destination', dir], ROOT, process.env);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.out.slice(-4000)}`);
  const name = pack.out.trim().split('\n').pop() as string;
  const tarball = path.join(dir, name);
  const packed = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
  console.log(`== npm pack: ${name}, ${(statSync(tarball).size / 1024).toFixed(0)} kB, ${packed.length} files, in ${pack.seconds.toFixed(1)} s (the build at prepack)`);
  const stray = packed.filter((f) => /^package\/(src|test|bench|patches)\/|\.test\.|\.tsbuildinfo$/.test(f) || /^package\/dist\/.*\.ts$/.test(f) && !f.endsWith('.d.ts'));
  if (stray.length) problems.push(`the tarball carries what the product does not need: ${stray.slice(0, 5).join(', ')}`);
  const manifest = JSON.parse(execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' })) as { scripts?: Record<string, string>; private?: boolean };
  const installScripts = Object.keys(manifest.scripts ?? {}).filter((s) => /^(pre|post)?(install|prepare)$/.test(s));
  if (installScripts.length) problems.push(`the packed package.json has install scripts: ${installScripts.join(', ')}`);
  if (manifest.private) problems.push('the packed package.json is private');

  const project = path.join(dir, 'project');
  const home = path.join(dir, 'home');
  const ownCache = path.join(dir, 'npm-cache');
  for (const d of [project, home, ownCache]) mkdirSync(d);
  writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'my-temporal-app', version: '1.0.0', private: true }, null, 2)}\n`);
  const installEnv = userEnv(home, process.env.npm_config_cache || path.join(process.env.HOME ?? '/root', '.npm'));
  const theirs = await run('npm', ['install', ...USER_DEPENDENCIES], project, installEnv);
  if (theirs.code !== 0) throw new Error(`npm install of the user's own dependencies failed:\n${theirs.out.slice(-4000)}`);
  const ours = await run('npm', ['install', tarball], project, installEnv);
  console.log(`== npm install ${USER_DEPENDENCIES.join(' ')}: ${theirs.seconds.toFixed(1)} s; then the tarball: ${ours.seconds.toFixed(1)} s`);
  if (ours.code !== 0) throw new Error(`npm install of the tarball beside the user's SDK failed:\n${ours.out.slice(-4000)}`);
  if (/patch-package/.test(ours.out)) problems.push(`the install mentions patch-package:\n${ours.out}`);

  // One copy of each shared library: what the package resolves is the user's own.
  const pkgDir = path.join(project, 'node_modules', 'bareagent-temporal');
  for (const lib of SHARED) {
    const fromPackage = path.dirname(require.resolve(`${lib}/package.json`, { paths: [pkgDir] }));
    const usersOwn = path.join(project, 'node_modules', lib);
    if (fromPackage !== usersOwn) problems.push(`${lib}: the package resolves ${fromPackage}, not the user's ${usersOwn}`);
  }
  const ls = await run('npm', ['ls', '--all', ...SHARED], project, installEnv);
  if (ls.code !== 0) problems.push(`npm ls of the shared libraries failed:\n${ls.out}`);
  const versions = new Set([...ls.out.matchAll(/@temporalio\/[a-z-]+@(\d+\.\d+\.\d+)/g)].map((m) => m[1]));
  if (versions.size !== 1 || !versions.has(SDK_VERSION)) problems.push(`npm ls shows @temporalio/* versions ${[...versions].join(', ')}, not ${SDK_VERSION} alone`);
  // Nothing patched the user's tree, and nothing compiles TypeScript at run time.
  const sandbox = readFileSync(path.join(project, 'node_modules/@temporalio/worker/lib/workflow/reusable-vm.js'), 'utf8');
  if (sandbox.includes('bareagent patch')) problems.push("the user's @temporalio/worker was patched");
  if (existsSync(path.join(project, 'node_modules', 'tsx'))) problems.push('tsx was installed: the package must run without it');

  if (NORMAL_USER) execFileSync('chown', ['-R', `${NORMAL_USER.uid}:${NORMAL_USER.uid}`, dir]);
  return { dir: project, home, tarball, env: userEnv(home, ownCache), problems };
}
