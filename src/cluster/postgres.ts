import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Log } from '../server/temporal-cli';

const run = promisify(execFile);

/** PostgreSQL refuses to run as root: as root, its programs run as this user. */
const UNPRIVILEGED_USER = 'postgres';

export interface Postgres {
  bin: string;
  data: string;
  port: number;
  logFile: string;
}

/** The directory holding initdb and pg_ctl: $BAREAGENT_PG_BIN, Debian's newest, or PATH. */
export async function findPostgresBin(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.BAREAGENT_PG_BIN) {
    if (!existsSync(path.join(env.BAREAGENT_PG_BIN, 'pg_ctl'))) throw new Error(`BAREAGENT_PG_BIN=${env.BAREAGENT_PG_BIN} holds no pg_ctl`);
    return env.BAREAGENT_PG_BIN;
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => existsSync(path.join(debian, v, 'bin', 'pg_ctl'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return path.join(debian, newest, 'bin');
  try {
    const { stdout } = await run('pg_config', ['--bindir'], { env });
    if (existsSync(path.join(stdout.trim(), 'pg_ctl'))) return stdout.trim();
  } catch {
    // no pg_config: PostgreSQL's server programs are not installed
  }
  throw new Error(
    'PostgreSQL (12 or later) is not installed: the cluster keeps Temporal in it.\n' +
      '  Debian/Ubuntu: apt-get install postgresql   (the server programs initdb, pg_ctl, postgres)\n' +
      '  or set BAREAGENT_PG_BIN to the directory that holds them.',
  );
}

const asRoot = () => process.getuid?.() === 0;

/** Runs one of PostgreSQL's programs, as the unprivileged user when we are root. */
async function pg(pgInstance: Pick<Postgres, 'bin'>, program: string, args: string[]): Promise<string> {
  const binary = path.join(pgInstance.bin, program);
  const [file, argv] = asRoot() ? ['runuser', ['-u', UNPRIVILEGED_USER, '--', binary, ...args]] : [binary, args];
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
  try {
    const [uid, gid] = await Promise.all(['-u', '-g'].map(async (flag) => Number((await run('id', [flag, UNPRIVILEGED_USER])).stdout.trim())));
    return { uid: uid as number, gid: gid as number };
  } catch {
    throw new Error(`PostgreSQL does not run as root and there is no "${UNPRIVILEGED_USER}" user to run it as: create one, or run as another user`);
  }
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
