import path from 'node:path';
import type { CommandPins, PinnedFile } from '../../common/pinned-files';
import { parseShell, type Word } from '../../loop/shell-parse';
import { readWorkspaceFile } from '../tools/read-workspace-file';
import { isInside } from '../tools/workspace';
import { sha256 } from './settings-files';

/** Programs whose arguments name the code they run: the script, and files given to their options (`node -r x.js`). */
const INTERPRETER = /^(sh|bash|zsh|dash|ksh|ash|mksh|fish|node|nodejs|deno|bun|tsx|ts-node|python[0-9.]*|pypy[0-9.]*|ruby[0-9.]*|perl[0-9.]*|php[0-9.]*|lua[0-9.]*|Rscript|source|\.)$/;
const SHELL = /^(sh|bash|zsh|dash|ksh|ash|mksh)$/;
/** Wrappers whose command follows them (their options skipped). */
const WRAPPERS = new Set(['env', 'command', 'exec', 'nohup', 'time', 'nice', 'timeout', 'stdbuf', 'xargs']);
/**
 * Programs that run the workspace's code by convention, from files no command names: build files,
 * and git, whose `.git/config` (hooks, `core.fsmonitor`, aliases, pagers) the agent can write.
 */
const BUILD_TOOLS = /^(npm|npx|pnpm|yarn|bunx|make|gmake|just|cmake|ninja|bazel|cargo|go|mvn|gradle|sbt|dotnet|pip[0-9.]*|pytest|jest|vitest|tox|nox|rake|bundle|composer|mix|poetry|uv|git)$/;
/** Shell words that start a command without being its program. */
const RESERVED = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{', '}', '(', ')']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const MAX_PINS = 16;
const MAX_DEPTH = 3;
const MAX_SCRIPT_BYTES = 256 * 1024;
/** What no digest covers, said at the question: a long script's many computed words are summed up past this. */
const MAX_UNPINNED_SHOWN = 8;
/** Working folders a script may be in before its relative names are said to be unresolvable. */
const MAX_FOLDERS = 8;
/** `$(dirname "$0")`, `$(dirname -- "${BASH_SOURCE[0]}")` and the like, as written: which variable's folder a `cd` goes to. */
const DIRNAME_OF = /\$\(\s*dirname\s+(?:--\s+)?"?\$\{?([A-Za-z0-9_@#?*!-]+)(?:\[0\])?\}?"?\s*\)/g;
const SCRIPT_ITSELF = new Set(['0', 'BASH_SOURCE']);

interface NamedFile {
  /** Workspace-relative (or absolute, or `~`) path, resolved against the folder the command runs in. */
  file: string;
  /** Every folder (workspace-relative) the command naming it may be running in: the file's own commands start there. */
  folders?: string[];
  mustExist: boolean;
  /**
   * How the file is run: `shell` (its own commands are read for the files they run in turn),
   * `code` (an interpreter that may load other workspace files, which no digest covers), or
   * `program` (run as a path: its `#!` line says which).
   */
  runBy?: 'shell' | 'code' | 'program';
  /** The interpreter's name, for `code`. */
  interpreter?: string;
  /** Run by `source` or `.`: its `$0` is its caller's, so `cd "$(dirname "$0")"` in it is not followed. */
  sourced?: boolean;
}

interface Named {
  /** Workspace-relative paths the command runs, resolved against the folders it may run in (commands start at the workspace). */
  files: NamedFile[];
  unpinned: string[];
}

/** Where a command line runs: the folders it may start in (undefined: not known), and the folder of the script it is (`$0`). */
export interface Place {
  folders: string[] | undefined;
  scriptFolder?: string;
}

const WORKSPACE: Place = { folders: [''] };

/**
 * What a shell command line (a hook) runs from the workspace: the files it names, and what it cannot pin.
 * Its `cd`s and `pushd`s are followed: every folder it may be in, at any point (a failed `cd`, a loop
 * or a function can run a name from any of them), resolves each relative name; a `cd` to a folder
 * not known before it runs makes relative names unresolvable, which is said.
 */
export function filesNamedByCommand(command: string, depth = 0, at: Place = WORKSPACE): Named {
  const named: Named = { files: [], unpinned: [] };
  const parsed = parseShell(command);
  if (!parsed.parsed) named.unpinned.push('the command could not be parsed');
  const moves = foldersVisited(command, parsed.commands.map((simple) => simple.words), at);
  const folders = moves.folders;
  const unknown = moves.why ?? 'it runs in a folder not known before it runs';
  for (const simple of parsed.commands) {
    const found = filesNamedByArgv(simple.words, depth);
    named.unpinned.push(...found.unpinned);
    for (const file of found.files) {
      // A file found inside `sh -c '...'` starts in the folders that inline script may be in, under each of these.
      const startsIn = (folder: string) => (file.folders ?? ['']).map((inner) => path.posix.join(folder, inner));
      if (path.isAbsolute(file.file) || file.file.startsWith('~')) named.files.push({ ...file, ...(folders ? { folders: folders.flatMap(startsIn) } : { folders }) });
      else if (folders === undefined) named.unpinned.push(`${unknown}: ${file.file} is relative to it, so no digest covers it`);
      else for (const folder of folders) named.files.push({ ...file, file: path.posix.join(folder, file.file), folders: folders.flatMap(startsIn) });
    }
  }
  return named;
}

/** Every folder a command line's `cd`/`pushd` may take it to, from where it starts; undefined once one is not known. */
function foldersVisited(command: string, commands: readonly Word[][], at: Place): { folders: string[] | undefined; why?: string } {
  if (at.folders === undefined) return { folders: undefined };
  const folders = new Set(at.folders);
  // `$(dirname "$1")` and `$(dirname "$0")` parse to the same word: the raw text tells which.
  const dirnames = [...command.matchAll(DIRNAME_OF)].map((m) => m[1] as string);
  const ofScript = dirnames.length > 0 && dirnames.every((name) => SCRIPT_ITSELF.has(name)) && at.scriptFolder !== undefined;
  for (const words of commands) {
    const [program, ...args] = words;
    if (!program?.literal || !['cd', 'pushd'].includes(program.text)) continue;
    const target = args.find((w) => !(w.literal && /^-[A-Za-z@]*$/.test(w.text) && w.text !== '-') && w.text !== '--');
    if (target === undefined || target.text === '-' || /^[+-][0-9]+$/.test(target.text)) {
      // `cd` alone goes home (outside the workspace, not followed); `cd -`, `pushd` alone or `+N` go back to a folder already counted.
      if (target === undefined && program.text === 'cd') return { folders: undefined, why: 'a cd goes to the home folder' };
      continue;
    }
    const script = /^\$\(dirname (?:-- )?\$\)(\/.*)?$/.exec(target.text);
    let into: string[];
    if (target.literal && target.text.startsWith('/')) into = [target.text];
    else if (target.literal) into = [...folders].map((folder) => path.posix.join(folder, target.text));
    else if (script && ofScript) into = [path.posix.join(at.scriptFolder as string, script[1] ?? '')];
    else return { folders: undefined, why: `a ${program.text} goes to a folder computed when it runs (${JSON.stringify(target.text)})` };
    // `cd ..` from the workspace itself is counted out, but not when it is the only way the `cd` can go.
    const outside = (folder: string) => path.posix.isAbsolute(folder) || folder === '..' || folder.startsWith('../');
    if (into.every(outside)) return { folders: undefined, why: `a ${program.text} goes to a folder outside the workspace (${JSON.stringify(target.text)})` };
    into = into.filter((folder) => !outside(folder));
    for (const folder of into) folders.add(folder === '.' ? '' : folder);
    if (folders.size > MAX_FOLDERS) return { folders: undefined, why: `it may run in more than ${MAX_FOLDERS} folders` };
  }
  return { folders: [...folders] };
}

/** What an argv (an MCP server's command and args, or one simple command) runs from the workspace. */
export function filesNamedByArgv(input: readonly Word[], depth = 0): Named {
  const named: Named = { files: [], unpinned: [] };
  let words = [...input];
  while (words.length > 0) {
    const first = words[0] as Word;
    if ((first.literal && ASSIGNMENT.test(first.text)) || RESERVED.has(first.text)) words = words.slice(1);
    else if (first.literal && WRAPPERS.has(path.basename(first.text))) {
      words = words.slice(1);
      // Options, a duration (`timeout 10`) and assignments (`env A=1`) before the command.
      while (words.length > 0 && /^(-|[0-9]|[A-Za-z_][A-Za-z0-9_]*=)/.test((words[0] as Word).text)) words = words.slice(1);
    } else break;
  }
  const program = words[0];
  if (!program) return named;
  if (!program.literal) {
    named.unpinned.push(`its program is computed (${JSON.stringify(program.text)})`);
    return named;
  }
  const name = path.basename(program.text);
  if (program.text.includes('/')) named.files.push({ file: program.text, mustExist: false, runBy: 'program' });
  if (name === 'git') named.unpinned.push("git runs what the workspace's .git/config names (hooks, fsmonitor, aliases)");
  else if (BUILD_TOOLS.test(name)) named.unpinned.push(`${name} runs the workspace's own build files`);
  if (!INTERPRETER.test(name)) return named;
  const args = words.slice(1);
  const inline = args.findIndex((w) => /^-[a-zA-Z]*[ce]$/.test(w.text) || w.text === '--eval');
  if (inline >= 0) {
    const script = args[inline + 1];
    if (SHELL.test(name) && script?.literal && depth < MAX_DEPTH) merge(named, filesNamedByCommand(script.text, depth + 1));
    else if (!SHELL.test(name) && script && !script.literal) named.unpinned.push('its inline code is computed');
    return named;
  }
  if (args.some((w) => w.text === '-m')) named.unpinned.push(`${name} -m loads a module from the workspace`);
  let script = true;
  for (const word of args) {
    if (!word.literal) {
      named.unpinned.push(`an argument is computed (${JSON.stringify(word.text)})`);
      continue;
    }
    if (word.text.startsWith('-')) continue;
    // The script (pinned even when absent: the agent could create it), then any existing file an option loads.
    named.files.push(script ? { file: word.text, mustExist: false, ...scriptRunner(name) } : { file: word.text, mustExist: true });
    script = false;
  }
  return named;
}

function scriptRunner(interpreter: string): Pick<NamedFile, 'runBy' | 'interpreter' | 'sourced'> {
  if (interpreter === 'source' || interpreter === '.') return { runBy: 'shell', sourced: true };
  return SHELL.test(interpreter) ? { runBy: 'shell' } : { runBy: 'code', interpreter };
}

/** A `#!` line's interpreter (`#!/usr/bin/env bash` → bash), or undefined. */
function shebangInterpreter(bytes: Buffer): string | undefined {
  if (bytes[0] !== 0x23 || bytes[1] !== 0x21) return undefined;
  const words = bytes.subarray(2, 256).toString('utf8').split('\n')[0]?.trim().split(/\s+/) ?? [];
  const first = path.basename(words[0] ?? '');
  return first === 'env' ? words.slice(1).find((w) => !w.startsWith('-') && !ASSIGNMENT.test(w)) : first || undefined;
}

/**
 * What a pinned file runs in turn: a shell script's own commands are read like the hook's (the
 * helpers it sources or starts are pinned too, up to a depth); code in another language may load
 * other workspace files, which is said, since no digest here covers them.
 */
function runsInTurn(file: NamedFile, relative: string, bytes: Buffer, depth: number): Named {
  let runBy = file.runBy;
  let interpreter = file.interpreter;
  if (runBy === 'program') {
    interpreter = shebangInterpreter(bytes);
    // No `#!`: a binary runs as itself; a text file is run by the calling shell as a shell script.
    if (interpreter === undefined && bytes.subarray(0, 1024).includes(0)) return { files: [], unpinned: [] };
    runBy = interpreter === undefined ? 'shell' : scriptRunner(interpreter).runBy;
  }
  if (runBy === 'shell') {
    if (depth >= MAX_DEPTH) return { files: [], unpinned: [`${relative} runs scripts nested deeper than ${MAX_DEPTH}`] };
    if (bytes.length > MAX_SCRIPT_BYTES) return { files: [], unpinned: [`${relative} is too long to read for the files it runs`] };
    // It starts where its caller was; `$0` is the path it was run by (a sourced file's own folder, as BASH_SOURCE).
    const inner = filesNamedByCommand(bytes.toString('utf8'), depth + 1, { folders: file.folders ?? [''], ...(file.sourced ? {} : { scriptFolder: path.posix.dirname(relative) }) });
    return { files: inner.files, unpinned: inner.unpinned.map((why) => `${relative}: ${why}`) };
  }
  if (runBy === 'code') return { files: [], unpinned: [`${relative} may load other workspace files (${interpreter} imports) that no digest covers`] };
  return { files: [], unpinned: [] };
}

function merge(into: Named, from: Named): void {
  into.files.push(...from.files);
  into.unpinned.push(...from.unpinned);
}

/**
 * The digests of the workspace files a command runs, read through the safe open. A name that is
 * not a file (a directory, a FIFO) is code no digest covers, and said; an absent script is pinned
 * as absent.
 */
export async function pinFiles(root: string, named: Named): Promise<CommandPins> {
  const pins: PinnedFile[] = [];
  const unpinned = [...named.unpinned];
  const seen = new Set<string>();
  // Files in the order found; a shell script's helpers join the queue (depth counted from the hook).
  const queue = named.files.map((file) => ({ file, depth: 0 }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { file, mustExist } = next.file;
    const absolute = path.resolve(root, file);
    if (!isInside(root, absolute) || file.startsWith('~')) continue; // outside the workspace: out of the agent's reach
    const relative = path.relative(root, absolute);
    if (relative === '' || seen.has(relative)) continue;
    seen.add(relative);
    let bytes: Buffer | undefined;
    try {
      bytes = await readWorkspaceFile(root, relative);
    } catch (err) {
      if (mustExist) continue;
      unpinned.push(`${relative} cannot be pinned: ${(err as Error).message}`);
      continue;
    }
    if (bytes === undefined && mustExist) continue;
    if (pins.length >= MAX_PINS) {
      unpinned.push(`more than ${MAX_PINS} workspace files named`);
      break;
    }
    pins.push({ path: relative, sha256: bytes === undefined ? null : sha256(bytes) });
    if (bytes === undefined) continue;
    const inTurn = runsInTurn(next.file, relative, bytes, next.depth);
    unpinned.push(...inTurn.unpinned);
    queue.push(...inTurn.files.map((helper) => ({ file: helper, depth: next.depth + 1 })));
  }
  const said = [...new Set(unpinned)];
  const shown = said.length > MAX_UNPINNED_SHOWN ? [...said.slice(0, MAX_UNPINNED_SHOWN), `and ${said.length - MAX_UNPINNED_SHOWN} more`] : said;
  return { pins, ...(shown.length ? { unpinned: shown.join('; ') } : {}) };
}

export class PinnedFileChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Every pinned file must still have its digest (or still be absent); the first that does not refuses the command. */
export async function checkPins(root: string, pins: readonly PinnedFile[] | undefined): Promise<void> {
  await verifiedPins(root, pins);
}

/** The pinned files' bytes as checked: those present, each with the digest the human was shown. */
export async function verifiedPins(root: string, pins: readonly PinnedFile[] | undefined): Promise<Array<{ path: string; bytes: Buffer }>> {
  const verified: Array<{ path: string; bytes: Buffer }> = [];
  for (const pin of pins ?? []) {
    let bytes: Buffer | undefined;
    try {
      bytes = await readWorkspaceFile(root, pin.path);
    } catch (err) {
      throw new PinnedFileChangedError(`${pin.path} cannot be read as it was when the run started (${(err as Error).message})`);
    }
    const now = bytes === undefined ? null : sha256(bytes);
    if (now === pin.sha256) {
      if (bytes !== undefined) verified.push({ path: pin.path, bytes });
      continue;
    }
    const was = pin.sha256 === null ? 'absent' : `sha256 ${pin.sha256.slice(0, 12)}…`;
    const is = now === null ? 'now absent' : `now sha256 ${now.slice(0, 12)}…`;
    throw new PinnedFileChangedError(`${pin.path} changed after the run started (${was} when the human saw it, ${is})`);
  }
  return verified;
}
