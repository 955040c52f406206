import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../common/search-attributes';
import { ensurePrivateDir, narrowToPrivate, PRIVATE_FILE_MODE, writePrivateFile } from '../connection/private-files';
import { findOrBuildTemporalCli, type Log } from './temporal-cli';

export interface DevServerOptions {
  address: string;
  uiPort: number;
  home: string;
  namespace?: string;
  /** Extra `temporal server start-dev` flags, e.g. `--dynamic-config-value`. */
  extraArgs?: string[];
  /** Keep the SQLite file (the default) or run in memory. */
  persistent?: boolean;
  /** `--sqlite-pragma` settings of the SQLite file (default: EMBEDDED_SQLITE_PRAGMAS; `{}`: SQLite's own defaults). */
  sqlitePragmas?: Record<string, string>;
  startTimeoutMs?: number;
  log?: Log;
  /** The Web UI decodes payloads through this codec server (default: env BAREAGENT_UI_CODEC_ENDPOINT). */
  uiCodecEndpoint?: string;
  /** Leave the server running after this process exits (logs go to `<home>/server.log`). */
  background?: boolean;
}

export interface DevServer {
  address: string;
  uiUrl: string;
  reused: boolean;
  process?: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A write-ahead log instead of SQLite's rollback journal, synced at checkpoints instead of at
 * every commit: about twice the iterations per second on the file (BENCHMARKS.md, section iv).
 * A commit survives a crash of the server process (kill -9: the chaos suite proves it); only an
 * OS crash or a power cut can lose the last commits before a checkpoint.
 */
export const EMBEDDED_SQLITE_PRAGMAS: Readonly<Record<string, string>> = { journal_mode: 'wal', synchronous: 'normal' };

export function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at) || '127.0.0.1', port: Number(address.slice(at + 1)) };
}

/** Starts `temporal server start-dev`, or reuses a Temporal server that already answers there. */
export async function ensureDevServer(options: DevServerOptions): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOrReuse(options);
    } catch (err) {
      // The CLI picks its HTTP API port itself; another server starting at the same moment can
      // take it first. The ports we were given are checked before, so this one is worth a retry.
      if (attempt >= 3 || !(err instanceof PortRaceError)) throw err;
    }
  }
}

/** The server lost a port it picked itself (not one of ours) to another process. */
class PortRaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export function lostPortRace(stderr: string, ours: number[]): boolean {
  const match = /listen tcp [^:]+:(\d+): bind: address already in use/.exec(stderr);
  return match !== null && !ours.includes(Number(match[1]));
}

async function startOrReuse(options: DevServerOptions): Promise<DevServer> {
  const log = options.log ?? ((line: string) => console.error(line));
  const { host, port } = splitAddress(options.address);
  const uiUrl = `http://${host}:${options.uiPort}`;
  if (await isTemporalServer(options.address)) {
    log(`Reusing the Temporal server already answering on ${options.address}`);
    return { address: options.address, uiUrl, reused: true, stop: async () => undefined };
  }
  if (await isPortOpen(host, port)) {
    throw new Error(
      `Port ${port} on ${host} is taken by something that is not a Temporal server.\n` +
        `  Stop it, or set TEMPORAL_ADDRESS to another address (e.g. 127.0.0.1:7244).`,
    );
  }
  const cli = await findOrBuildTemporalCli(log);
  ensurePrivateDir(options.home);
  const logFile = path.join(options.home, 'server.log');
  // Files an older version made world-readable (every run's history is in the database).
  for (const name of [...SQLITE_FILES, 'server.log', 'server.pid']) narrowToPrivate(path.join(options.home, name));
  const args = [
    'server', 'start-dev',
    '--ip', host,
    '--port', String(port),
    '--ui-port', String(options.uiPort),
    '--log-level', 'warn',
    ...(options.persistent === false ? [] : sqliteArgs(options)),
    ...(options.namespace && options.namespace !== 'default' ? ['--namespace', options.namespace] : []),
    ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
    // The worker takes an activity in the reply to the workflow task that scheduled it, skipping
    // a round through matching (measured: ~1 ms per iteration, ~9% more iterations/s at 50 runs).
    '--dynamic-config-value', 'system.enableActivityEagerExecution=true',
    // The dev server has one history shard, whose transfer queue (every workflow and activity task
    // on its way to matching) is read at most 20 times a second by default: past a short burst
    // each task waited for the next read. Measured: 100 → 36 ms per iteration (BENCHMARKS.md).
    '--dynamic-config-value', 'history.transferProcessorMaxPollRPS=1000',
    // The CLI forces a re-read of the search attributes from SQLite on every workflow task,
    // visibility write and upsert, so that attributes added through the API show at once. This
    // server registers its own with --search-attribute before it serves, so the cache holds them.
    '--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=false',
    ...uiCodecArgs(options.uiCodecEndpoint ?? process.env.BAREAGENT_UI_CODEC_ENDPOINT),
    ...(options.extraArgs ?? []),
  ];
  const [file, argv] = privately(cli, args);
  // A server in the background writes its output to the log: what this start wrote is read from there.
  const logStart = options.background ? sizeOf(logFile) : 0;
  const child = options.background
    ? spawn(file, argv, { stdio: ['ignore', openSync(logFile, 'a', PRIVATE_FILE_MODE), openSync(logFile, 'a', PRIVATE_FILE_MODE)], detached: true })
    : spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  // Its start and its end: a Go panic puts why it failed (a port taken) first, then every goroutine's stack.
  const stderr = new OutputEnds();
  child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk.toString()));
  if (options.background) {
    child.unref();
    writePrivateFile(path.join(options.home, 'server.pid'), String(child.pid));
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) {
      const output = options.background ? logOutput(logFile, logStart) : stderr.toString();
      const message = `temporal server start-dev exited (${child.exitCode}):\n${output || `see ${logFile}`}`;
      throw lostPortRace(output, [port, options.uiPort]) ? new PortRaceError(message) : new Error(message);
    }
    if (await isTemporalServer(options.address)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The Temporal dev server did not answer on ${options.address} in time:\n${stderr.toString()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`Temporal dev server on ${options.address}, Web UI on ${uiUrl}`);
  return {
    address: options.address,
    uiUrl,
    reused: false,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** What a start wrote to the log since `from`: its start and its end. */
function logOutput(file: string, from: number): string {
  try {
    const ends = new OutputEnds();
    ends.add(readFileSync(file).subarray(from).toString());
    return ends.toString().trim();
  } catch {
    return '';
  }
}

/** The first and the last 8,000 characters of an output, whole when it is shorter than both. */
export class OutputEnds {
  private static readonly KEPT = 8000;
  private start = '';
  private end = '';
  private length = 0;

  add(text: string): void {
    this.length += text.length;
    if (this.start.length < 2 * OutputEnds.KEPT) this.start += text.slice(0, 2 * OutputEnds.KEPT - this.start.length);
    this.end = (this.end + text).slice(-OutputEnds.KEPT);
  }

  toString(): string {
    return this.length <= 2 * OutputEnds.KEPT ? this.start : `${this.start.slice(0, OutputEnds.KEPT)}\n[... cut ...]\n${this.end}`;
  }
}

/** The database and the files SQLite keeps beside it in WAL mode. */
const SQLITE_FILES = ['temporal.sqlite', 'temporal.sqlite-wal', 'temporal.sqlite-shm'];

/**
 * The CLI under umask 077, through a shell that execs it (same pid): the SQLite file and the
 * -wal/-shm files it makes while it runs are 0600 from their first byte, which no chmod after the
 * start could promise.
 */
function privately(cli: string, args: string[]): [string, string[]] {
  return ['/bin/sh', ['-c', 'umask 077 && exec "$0" "$@"', cli, ...args]];
}

function sqliteArgs(options: DevServerOptions): string[] {
  const pragmas = Object.entries(options.sqlitePragmas ?? EMBEDDED_SQLITE_PRAGMAS);
  return ['--db-filename', path.join(options.home, 'temporal.sqlite'), ...pragmas.flatMap(([key, value]) => ['--sqlite-pragma', `${key}=${value}`])];
}

/** `--ui-codec-endpoint`: the Web UI (in the browser) sends encrypted payloads there to show them decrypted. */
function uiCodecArgs(endpoint: string | undefined): string[] {
  return endpoint ? ['--ui-codec-endpoint', endpoint] : [];
}

export async function isTemporalServer(address: string): Promise<boolean> {
  const { host, port } = splitAddress(address);
  if (!(await isPortOpen(host, port))) return false;
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 2000 });
    const conn = connection;
    await conn.withDeadline(Date.now() + 3000, () => conn.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

export function isPortOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}
