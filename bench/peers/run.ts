/**
 * The same durable agent task on each peer, side by side, in one interleaved run.
 *
 *   npm run bench                      (in bench/peers; or `npm run bench -- --only peers` at the root)
 *   npm run bench -- --rounds 3 --peers langgraph,bareagent --out /tmp/peers.md
 *
 * Each peer runs in a child process of its own (agents/<peer>.ts) against the servers it needs,
 * which this process starts and stops. Per round, each peer (in a rotated order) runs one warm-up
 * run and one measured run of TURNS turns; then each peer runs once more and is SIGKILLed when its
 * model request for turn KILL_AT_TURN arrives, and is started again to resume. The scripted model
 * (model.ts) times the turns and counts model calls; inotify (opens.py) counts tool executions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PeerModel } from './model';
import { PEERS, type PeerSpec } from './peers';
import { loadAverage, treeCpuMs, treeRss } from './proc';
import { startPostgres, startRestate, startTemporal, type PeerServer } from './servers';
import { FILE_BYTES, KILL_AT_TURN, TURNS, fileName } from './task';
import { renderReport, type KillResult, type PeerResult, type RunFigures } from './report';

const HERE = __dirname;
const RUN_TIMEOUT_MS = Number(process.env.PEERS_RUN_TIMEOUT_MS ?? 240_000);

interface Options { rounds: number; peers: string[]; out: string; kill: boolean }

function parse(argv: string[]): Options {
  const options: Options = { rounds: 3, peers: PEERS.map((p) => p.id), out: path.join(HERE, 'peers-report.md'), kill: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => argv[++i] ?? '';
    if (arg === '--rounds') options.rounds = Math.max(1, Number(value()));
    else if (arg === '--peers') options.peers = value().split(',');
    else if (arg === '--out') options.out = path.resolve(value());
    else if (arg === '--no-kill') options.kill = false;
    else throw new Error(`unknown option ${arg} (--rounds N, --peers a,b, --out FILE, --no-kill)`);
  }
  for (const id of options.peers) if (!PEERS.some((p) => p.id === id)) throw new Error(`no peer ${id}: ${PEERS.map((p) => p.id).join(', ')}`);
  return options;
}

/** inotify open counts per workspace file (opens.py), snapshotted on SIGUSR1. */
class OpenCounter {
  private lines: string[] = [];
  private waiters: Array<(line: string) => void> = [];
  private constructor(private readonly child: ChildProcess) {
    let buffer = '';
    child.stdout?.on('data', (d: Buffer) => {
      buffer += d.toString();
      let at: number;
      while ((at = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        const waiter = this.waiters.shift();
        if (waiter) waiter(line);
        else this.lines.push(line);
      }
    });
  }
  static async start(dir: string): Promise<OpenCounter> {
    const child = spawn('python3', [path.join(HERE, 'opens.py'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    process.once('exit', () => child.exitCode === null && child.kill('SIGKILL'));
    const counter = new OpenCounter(child);
    if ((await counter.next()) !== 'ready') throw new Error('opens.py did not start');
    return counter;
  }
  private next(): Promise<string> {
    const line = this.lines.shift();
    return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => this.waiters.push(resolve));
  }
  async snapshot(): Promise<Record<string, number>> {
    // Opens are reported asynchronously by the kernel: let the queue drain first.
    await new Promise((r) => setTimeout(r, 100));
    this.child.kill('SIGUSR1');
    return JSON.parse(await this.next()) as Record<string, number>;
  }
  stop(): void {
    if (this.child.pid && this.child.exitCode === null) process.kill(this.child.pid, 'SIGTERM');
  }
}

interface Child {
  process: ChildProcess;
  done: Map<string, string>;
  bytes: Map<string, { bytes: number; how: string }>;
  exited: Promise<number | null>;
  stderr(): string;
}

function spawnPeer(peer: PeerSpec, env: Record<string, string>): Child {
  const cwd = peer.cwd ?? HERE;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'agents', `${peer.id}.ts`)], {
    cwd,
    env: { ...process.env, ...env, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const done = new Map<string, string>();
  const bytes = new Map<string, { bytes: number; how: string }>();
  let err = '';
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    let at: number;
    while ((at = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, at);
      out = out.slice(at + 1);
      const doneLine = /^PEER DONE (\S+) (.*)$/.exec(line);
      const bytesLine = /^PEER BYTES (\S+) (\S+) (.*)$/.exec(line);
      if (doneLine) done.set(doneLine[1] as string, JSON.parse(doneLine[2] as string) as string);
      else if (bytesLine) bytes.set(bytesLine[1] as string, { bytes: Number(bytesLine[2]), how: JSON.parse(bytesLine[3] as string) as string });
    }
  });
  child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-30000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ? -1 : code)));
  return { process: child, done, bytes, exited, stderr: () => err };
}

async function waitExit(child: Child, timeoutMs: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const result = await Promise.race([child.exited, timeout]);
  clearTimeout(timer);
  if (result === 'timeout') {
    if (child.process.pid && child.process.exitCode === null) process.kill(child.process.pid, 'SIGKILL');
    await child.exited;
    throw new Error(`timed out after ${timeoutMs / 1000} s; ${errorLine(child, null)}`);
  }
  return result;
}

/** The error lines of a child's stderr (a Rust backtrace is noise), else its last lines. */
function errorLine(child: Child, code: number | null): string {
  if (process.env.PEERS_STDERR_DIR) writeFileSync(path.join(process.env.PEERS_STDERR_DIR, `${child.process.pid}.log`), child.stderr());
  const lines = child.stderr().trim().split('\n').filter(Boolean);
  const errors = lines.filter((line) => /error|exception|cannot|failed|not /i.test(line) && !/^\s+(\d+:|at )/.test(line));
  return `exit ${code}: ${(errors.length ? errors.slice(0, 6) : lines.slice(-8)).join(' | ').slice(0, 1500)}`;
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const peers = PEERS.filter((p) => options.peers.includes(p.id));
  const log = (line: string) => console.error(`[peers ${new Date().toISOString().slice(11, 19)}] ${line}`);
  const loadBefore = loadAverage();
  const model = await PeerModel.start();
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'peers-ws-'));
  for (let i = 0; i < TURNS; i++) writeFileSync(path.join(workspace, fileName(i)), `${i}:`.padEnd(FILE_BYTES - 1, 'x') + '\n');
  const opens = await OpenCounter.start(workspace);
  const dataRoot = mkdtempSync(path.join(os.tmpdir(), 'peers-data-'));
  const servers = new Map<string, PeerServer>();
  const needed = new Set(peers.flatMap((p) => p.servers));
  const starters: Record<string, () => Promise<PeerServer>> = { temporal: startTemporal, restate: startRestate, postgres: startPostgres };
  const results = new Map<string, PeerResult>(peers.map((p) => [p.id, { peer: p, runs: [], errors: [] }]));
  try {
    for (const name of needed) {
      log(`starting ${name}`);
      try {
        servers.set(name, await (starters[name] as () => Promise<PeerServer>)());
      } catch (err) {
        for (const p of peers.filter((q) => q.servers.includes(name))) results.get(p.id)?.errors.push(`${name} did not start: ${(err as Error).message}`);
      }
    }
    const envOf = (peer: PeerSpec, runs: string[], mode: 'start' | 'resume'): Record<string, string> => {
      const dataDir = path.join(dataRoot, peer.id);
      mkdirSync(dataDir, { recursive: true });
      return {
        PEER_RUNS: runs.join(','),
        PEER_MODE: mode,
        PEER_MODEL_URL: model.url,
        PEER_WORKSPACE: workspace,
        PEER_DATA_DIR: dataDir,
        ...Object.assign({}, ...peer.servers.map((s) => servers.get(s)?.env ?? {})),
        ...(peer.env?.() ?? {}),
      };
    };
    const rootsOf = (peer: PeerSpec, child: Child): number[] => [child.process.pid ?? -1, ...peer.servers.flatMap((s) => servers.get(s)?.pids() ?? [])];
    const usable = (peer: PeerSpec) => peer.servers.every((s) => servers.has(s)) && (results.get(peer.id)?.errors.length ?? 0) === 0;

    for (let round = 0; round < options.rounds; round++) {
      const order = peers.map((_, i) => peers[(i + round) % peers.length] as PeerSpec);
      for (const peer of order) {
        if (!usable(peer)) continue;
        const result = results.get(peer.id) as PeerResult;
        const runId = `${peer.id}-r${round}-${Date.now().toString(36)}`;
        const warm = `${runId}-warm`;
        let cpu0 = 0;
        let ownCpu0 = 0;
        let figures: Partial<RunFigures> = {};
        let atEnd: Promise<{ bytes: number; how: string }> | undefined;
        let child: Child | undefined;
        model.onRequest = (id, request) => {
          if (id !== runId || !child) return 'answer';
          const roots = rootsOf(peer, child);
          const own = [child.process.pid ?? -1];
          if (request.turn === 0) [cpu0, ownCpu0] = [treeCpuMs(roots), treeCpuMs(own)];
          if (request.turn === TURNS) {
            figures = { cpuMs: treeCpuMs(roots) - cpu0, ownCpuMs: treeCpuMs(own) - ownCpu0, rss: treeRss(roots) };
            atEnd = peer.bytesAtEnd?.(runId, servers);
            return atEnd ? atEnd.then(() => 'answer' as const, () => 'answer' as const) : 'answer';
          }
          return 'answer';
        };
        log(`round ${round + 1}: ${peer.id}`);
        const opensBefore = await opens.snapshot();
        child = spawnPeer(peer, envOf(peer, [warm, runId], 'start'));
        try {
          const code = await waitExit(child, RUN_TIMEOUT_MS);
          if (code !== 0 || !child.done.has(runId)) throw new Error(errorLine(child, code));
          const opensAfter = await opens.snapshot();
          const times = model.requests(runId).map((r) => r.at);
          const turns = times.slice(1).map((t, i) => t - (times[i] as number));
          const measuredOpens = Object.keys(opensAfter).reduce((sum, f) => sum + (opensAfter[f] ?? 0) - (opensBefore[f] ?? 0), 0);
          const reported = child.bytes.get(runId) ?? (atEnd ? await atEnd.catch((err: Error) => ({ bytes: NaN, how: err.message })) : undefined);
          result.runs.push({
            turns,
            cpuMs: figures.cpuMs ?? NaN,
            ownCpuMs: figures.ownCpuMs ?? NaN,
            rss: figures.rss ?? NaN,
            // the warm-up run opened the files too: half of the opens are the measured run's
            opensPerTool: measuredOpens / 2 / TURNS,
            requests: model.requests(runId).length,
            bytes: reported,
            answer: child.done.get(runId) ?? '',
          });
        } catch (err) {
          result.errors.push(`round ${round + 1}: ${(err as Error).message}`);
          log(`${peer.id}: ${(err as Error).message.slice(0, 400)}`);
        } finally {
          model.runs.delete(warm);
        }
      }
      log(`round ${round + 1} done, load ${loadAverage()}`);
    }

    if (options.kill) {
      for (const peer of peers) {
        if (!usable(peer) || !results.get(peer.id)?.runs.length) continue;
        log(`kill at turn ${KILL_AT_TURN}: ${peer.id}`);
        const result = results.get(peer.id) as PeerResult;
        const opensPerTool = result.runs.reduce((sum, r) => sum + r.opensPerTool, 0) / result.runs.length || 1;
        result.kill = await killAndResume(peer, model, opens, opensPerTool, (runs, mode) => spawnPeer(peer, envOf(peer, runs, mode)));
      }
    }
  } finally {
    opens.stop();
    await model.close();
    for (const server of servers.values()) await server.stop().catch((err) => log(`${server.name} stop: ${(err as Error).message}`));
    rmSync(workspace, { recursive: true, force: true });
    rmSync(dataRoot, { recursive: true, force: true });
  }
  const markdown = renderReport({ results: [...results.values()], loadBefore, loadAfter: loadAverage(), rounds: options.rounds, command: process.env.PEERS_COMMAND ?? 'npm run bench (bench/peers)' });
  writeFileSync(options.out, markdown);
  writeFileSync(options.out.replace(/\.md$/, '') + '.json', JSON.stringify([...results.values()].map((r) => ({ ...r, peer: r.peer.id })), null, 1));
  log(`wrote ${options.out}`);
}

async function killAndResume(peer: PeerSpec, model: PeerModel, opens: OpenCounter, opensPerTool: number, spawnChild: (runs: string[], mode: 'start' | 'resume') => Child): Promise<KillResult> {
  const runId = `${peer.id}-kill-${Date.now().toString(36)}`;
  let child: Child | undefined;
  let killedAt = 0;
  model.onRequest = (id, request) => {
    if (id === runId && request.turn === KILL_AT_TURN && !killedAt && child?.process.pid) {
      killedAt = performance.now();
      process.kill(child.process.pid, 'SIGKILL');
      return 'drop';
    }
    return 'answer';
  };
  const before = await opens.snapshot();
  const counts = async (): Promise<Pick<KillResult, 'modelCallsRedone' | 'toolCallsRedone' | 'requestsPerTurn'>> => {
    const requests = model.requests(runId);
    const requestsPerTurn = Array.from({ length: TURNS + 1 }, (_, t) => requests.filter((r) => r.turn === t).length);
    // Each turn before the kill had its answer: any further request for it is a model call made again.
    const modelCallsRedone = requestsPerTurn.slice(0, KILL_AT_TURN).reduce((sum, n) => sum + Math.max(0, n - 1), 0);
    // The files of the turns before the kill were each read once; more opens are tool calls done again.
    const after = await opens.snapshot();
    const reads = Array.from({ length: KILL_AT_TURN }, (_, t) => ((after[fileName(t)] ?? 0) - (before[fileName(t)] ?? 0)) / opensPerTool);
    const toolCallsRedone = Math.round(reads.reduce((sum, n) => sum + Math.max(0, n - 1), 0));
    return { modelCallsRedone, toolCallsRedone, requestsPerTurn };
  };
  try {
    child = spawnChild([runId], 'start');
    const code = await waitExit(child, RUN_TIMEOUT_MS);
    if (!killedAt) return { resumed: false, error: `not killed: the run ended first (${errorLine(child, code)})` };
    const resumeStarted = performance.now();
    const second = spawnChild([runId], 'resume');
    let resumeCode: number | null;
    try {
      resumeCode = await waitExit(second, RUN_TIMEOUT_MS);
    } catch (err) {
      return { ...(await counts()), resumed: false, error: `resume: ${(err as Error).message}` };
    }
    const firstAfter = model.requests(runId).find((r) => r.at > resumeStarted);
    return {
      ...(await counts()),
      resumed: resumeCode === 0 && second.done.has(runId),
      resumeMs: firstAfter ? firstAfter.at - resumeStarted : NaN,
      ...(resumeCode === 0 ? {} : { error: errorLine(second, resumeCode) }),
    };
  } finally {
    model.onRequest = () => 'answer';
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
