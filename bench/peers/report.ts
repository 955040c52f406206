/** The markdown block of the peers' section (BENCHMARKS.md, `<!-- bench:peers -->`). */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PeerSpec } from './peers';
import { KILL_AT_TURN, TURNS } from './task';

export interface RunFigures {
  /** ms between consecutive model requests of the run: one turn each. */
  turns: number[];
  /** CPU ms of the peer's process and its servers from the first model request to the last. */
  cpuMs: number;
  /** The part of it in the peer's own process (the rest is its servers'). */
  ownCpuMs: number;
  /** RSS of the same processes at the last model request. */
  rss: number;
  opensPerTool: number;
  requests: number;
  bytes?: { bytes: number; how: string };
  answer: string;
}

export interface KillResult {
  resumed: boolean;
  resumeMs?: number;
  modelCallsRedone?: number;
  toolCallsRedone?: number;
  requestsPerTurn?: number[];
  error?: string;
}

export interface PeerResult {
  peer: PeerSpec;
  runs: RunFigures[];
  errors: string[];
  kill?: KillResult;
}

function percentile(values: readonly number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}
const median = (values: readonly number[]) => percentile(values, 50);
const ms = (v: number, d = 1) => (Number.isFinite(v) ? `${v.toFixed(d)} ms` : '–');
const kib = (v: number) => (Number.isFinite(v) ? `${(v / 1024).toFixed(1)} KiB` : '–');
const mib = (v: number) => (Number.isFinite(v) ? `${(v / 1024 / 1024).toFixed(0)} MiB` : '–');
const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');

function versionOf(pkg: string, from: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(from, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

export function turnP50(result: PeerResult): number {
  return median(result.runs.flatMap((r) => r.turns));
}

export function renderReport(input: { results: PeerResult[]; loadBefore: string; loadAfter: string; rounds: number; command: string }): string {
  const here = __dirname;
  const root = path.resolve(here, '../..');
  const rows = input.results.map((r) => {
    const turns = r.runs.flatMap((run) => run.turns);
    const bytes = r.runs.map((run) => run.bytes?.bytes ?? NaN).filter(Number.isFinite);
    const kill = r.kill;
    const killCells = !kill
      ? ['–', '–', '–', '–']
      : [
          kill.resumed ? 'yes' : `no${kill.error ? ` (${kill.error.slice(0, 200)})` : ''}`,
          kill.modelCallsRedone ?? '–',
          kill.toolCallsRedone ?? '–',
          ms(kill.resumeMs ?? NaN, 0),
        ];
    if (!r.runs.length) return [r.peer.label, r.peer.store, `did not run: ${r.errors.join('; ').slice(0, 600).replace(/\|/g, '\\|')}`, '', '', '', '', '', '', '', '', ''];
    return [
      r.peer.label,
      r.peer.store,
      ms(percentile(turns, 50)),
      ms(percentile(turns, 95)),
      `${ms(median(r.runs.map((run) => run.cpuMs / TURNS)))} (${ms(median(r.runs.map((run) => run.ownCpuMs / TURNS)))})`,
      mib(median(r.runs.map((run) => run.rss))),
      bytes.length ? kib(median(bytes) / TURNS) : '–',
      `${r.runs.length}`,
      ...killCells.map((c) => String(c).replace(/\|/g, '\\|')),
    ];
  });
  const ours = input.results.find((r) => r.peer.id === 'bareagent');
  const externals = input.results.filter((r) => r.peer.external && !r.peer.reference && r.peer.id !== 'bareagent' && r.runs.length);
  const floor = input.results.find((r) => r.peer.id === 'temporal-floor' && r.runs.length);
  const fastestExternal = externals.sort((a, b) => turnP50(a) - turnP50(b))[0];
  const langgraph = input.results.find((r) => r.peer.id === 'langgraph' && r.runs.length);
  const ratios: string[] = [];
  if (ours?.runs.length && fastestExternal) ratios.push(`per-turn p50, BareAgent ÷ the fastest peer with an external durable store (${fastestExternal.peer.label}): **${x(turnP50(ours) / turnP50(fastestExternal))}** (target ≤ 0.5×)`);
  // Each round ran every peer within a minute or two: the ratio of one round is the one least moved by the machine's drift.
  const perRound = (other: PeerResult) => ours && ours.runs.length === other.runs.length ? ` (per round: ${ours.runs.map((run, i) => x(median(run.turns) / median(other.runs[i]?.turns ?? []))).join(', ')})` : '';
  if (ours?.runs.length && fastestExternal) ratios[0] += perRound(fastestExternal);
  if (ours?.runs.length && langgraph) ratios.push(`per-turn p50, BareAgent ÷ LangGraph with its in-process SQLite checkpointer: **${x(turnP50(ours) / turnP50(langgraph))}** (target ≤ 2×)${perRound(langgraph)}`);
  // The target against the fastest external store, set beside what Temporal's protocol alone costs a turn.
  if (floor && fastestExternal) ratios.push(`per-turn p50, the Temporal floor (no agent code) ÷ ${fastestExternal.peer.label}: **${x(turnP50(floor) / turnP50(fastestExternal))}**; BareAgent ÷ the Temporal floor: **${ours?.runs.length ? x(turnP50(ours) / turnP50(floor)) : '–'}**`);
  // BareAgent's own packages are the root's; the peers' are bench/peers' own.
  const versions = [...new Set(input.results.flatMap((r) => r.peer.packages))].sort().map((pkg) => `\`${pkg}\` ${versionOf(pkg, input.results.some((r) => r.peer.cwd && r.peer.packages.includes(pkg)) ? root : here)}`);
  const stores = input.results.flatMap((r) => r.runs[0]?.bytes ? [`${r.peer.label}: ${r.runs[0].bytes.how}`] : []);
  return [
    '## Side by side with the peers',
    '',
    `_Measured ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} with \`${input.command}\` on ${os.cpus().length} cores; load average ${input.loadBefore} before, ${input.loadAfter} after (the machine is shared: compare rows of this table only)._`,
    '',
    `The same task on each peer with its durability on: ${TURNS} turns against one scripted OpenAI-compatible model answering at once (bench/peers/model.ts), each turn one \`read_file\` tool call of a 4 KB file, then a final answer. ` +
      `Each peer runs in a process of its own, its servers beside it on loopback; ${input.rounds} rounds, the peers in a rotated order each round, each a warm-up run then a measured run in the same process. ` +
      'A turn is the time between two model requests of the run (model answer, tool call, the framework and its persistence). CPU is that of the peer process and of every server process it uses (from /proc, all their threads and children), from the first model request to the last, per turn; RSS is theirs at the last request. ' +
      `Then each peer runs once more and its process is SIGKILLed when the model request of turn ${KILL_AT_TURN + 1} arrives (${KILL_AT_TURN} turns done), and started again: the model server counts the model calls made again for turns already answered, inotify counts the opens of the files already read (the tool calls done again, whatever process runs them); "resume" is from the restart to the first model request.`,
    '',
    '| peer | durable store | turn p50 | turn p95 | CPU per turn (of it, the peer process) | RSS | bytes persisted per turn | runs | kill at turn 10: finished after restart | model calls redone | tool calls redone | restart → next model request |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    ...ratios.map((line) => `- ${line}`),
    '',
    `Bytes persisted: ${stores.join('; ') || 'none reported'}.`,
    '',
    `Versions: ${versions.join(', ')}; Node.js ${process.version}.`,
  ].join('\n');
}
