/**
 * The scripted conversation every measurement runs: N iterations of one `read_file` call each
 * (a different file every time, so the loop detector sees progress), then a final answer.
 * The scripted model answers at once; the time between two consecutive model requests of one
 * run is one iteration of the loop (model answer → tool → next model request).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ScriptedModelServer, ScriptStep } from '../src/testing/scripted-model-server';

export interface Workspace {
  dir: string;
  files: number;
  /** Characters of one read_file result (numbered lines), i.e. one tool output. */
  outputChars: number;
  dispose(): void;
}

/** `files` text files of about `bytes` each: f0.txt, f1.txt, ... */
export function makeWorkspace(files: number, bytes: number): Workspace {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-bench-ws-'));
  mkdirSync(dir, { recursive: true });
  const lineLength = 63;
  const lines = Math.max(1, Math.round(bytes / (lineLength + 1)));
  let outputChars = 0;
  for (let i = 0; i < files; i++) {
    const content = Array.from({ length: lines }, (_, n) => `${i}:${n}:`.padEnd(lineLength, 'x')).join('\n') + '\n';
    writeFileSync(path.join(dir, `f${i}.txt`), content);
    if (i === 0) outputChars = content.split('\n').slice(0, -1).map((line, n) => `${n + 1}: ${line}`).join('\n').length;
  }
  return { dir, files, outputChars, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Conversation {
  /** The scenario name: pass it as the run's `model`. */
  model: string;
  /** performance.now() of each conversation request (summary requests excluded). */
  requestTimes: number[];
  /** Compaction summary requests the model answered. */
  summaries: number;
}

/** The tool call of one scripted turn (`turn` from 0), or several in one reply. */
type ScriptedToolCall = { name: string; arguments: Record<string, unknown> };
export type ScriptedCall = (turn: number, files: number) => ScriptedToolCall | ScriptedToolCall[];

/** Every turn writes a file (a different one each turn, so the loop detector sees a new action). */
export const writeCall: ScriptedCall = (turn) => ({ name: 'write_file', arguments: { file_path: `out${turn % 10}.txt`, content: `turn ${turn}\n` } });

/** The default turn: read_file of the next file. */
export const readFileCall: ScriptedCall = (turn, files) => ({ name: 'read_file', arguments: { file_path: `f${turn % files}.txt` } });

/**
 * Registers a scenario on the scripted model: `iterations` read_file turns (or `call`'s), then "Done.".
 * A request without tools is a compaction summary and is answered with a short summary.
 */
export function scriptConversation(
  model: ScriptedModelServer,
  name: string,
  iterations: number,
  files: number,
  call: ScriptedCall = readFileCall,
): Conversation {
  const conversation: Conversation = { model: name, requestTimes: [], summaries: 0 };
  model.setScenario(name, (body: { tools?: unknown[] }): ScriptStep => {
    if (!body.tools) {
      conversation.summaries += 1;
      return { text: `Summary ${conversation.summaries}: the files read so far hold numbered x lines.` };
    }
    const turn = conversation.requestTimes.length;
    conversation.requestTimes.push(performance.now());
    if (turn >= iterations) return { text: 'Done.' };
    const calls = call(turn, files);
    if (!Array.isArray(calls)) return { toolCalls: [{ id: `call_${turn}`, ...calls }] };
    return { toolCalls: calls.map((c, i) => ({ id: `call_${turn}_${i}`, ...c })) };
  });
  return conversation;
}

/** Milliseconds between consecutive model requests: one entry per completed iteration. */
export function iterationLatencies(conversation: Conversation): number[] {
  const times = conversation.requestTimes;
  return times.slice(1).map((t, i) => t - (times[i] as number));
}
