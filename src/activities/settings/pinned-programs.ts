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
/** Programs that run the workspace's code by convention, from files no command names. */
const BUILD_TOOLS = /^(npm|npx|pnpm|yarn|make|cargo|go|mvn|gradle|pytest|jest|tox|rake|bundle|poetry|uv)$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const MAX_PINS = 16;

interface Named {
  /** Workspace-relative paths the command runs, as written (relative to the workspace, where commands start). */
  files: Array<{ file: string; mustExist: boolean }>;
  unpinned: string[];
}

/** What a shell command line (a hook) runs from the workspace: the files it names, and what it cannot pin. */
export function filesNamedByCommand(command: string, depth = 0): Named {
  const named: Named = { files: [], unpinned: [] };
  const parsed = parseShell(command);
  if (!parsed.parsed) named.unpinned.push('the command could not be parsed');
  for (const simple of parsed.commands) merge(named, filesNamedByArgv(simple.words, depth));
  return named;
}

/** What an argv (an MCP server's command and args, or one simple command) runs from the workspace. */
export function filesNamedByArgv(input: readonly Word[], depth = 0): Named {
  const named: Named = { files: [], unpinned: [] };
  let words = [...input];
  while (words.length > 0) {
    const first = words[0] as Word;
    if (first.literal && ASSIGNMENT.test(first.text)) words = words.slice(1);
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
  if (program.text.includes('/')) named.files.push({ file: program.text, mustExist: false });
  if (BUILD_TOOLS.test(name)) named.unpinned.push(`${name} runs the workspace's own build files`);
  if (!INTERPRETER.test(name)) return named;
  const args = words.slice(1);
  const inline = args.findIndex((w) => /^-[a-zA-Z]*[ce]$/.test(w.text) || w.text === '--eval');
  if (inline >= 0) {
    const script = args[inline + 1];
    if (SHELL.test(name) && script?.literal && depth < 3) merge(named, filesNamedByCommand(script.text, depth + 1));
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
    named.files.push({ file: word.text, mustExist: !script });
    script = false;
  }
  return named;
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
  for (const { file, mustExist } of named.files) {
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
  }
  return { pins, ...(unpinned.length ? { unpinned: unpinned.join('; ') } : {}) };
}

export class PinnedFileChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Every pinned file must still have its digest (or still be absent); the first that does not refuses the command. */
export async function checkPins(root: string, pins: readonly PinnedFile[] | undefined): Promise<void> {
  for (const pin of pins ?? []) {
    let now: string | null;
    try {
      const bytes = await readWorkspaceFile(root, pin.path);
      now = bytes === undefined ? null : sha256(bytes);
    } catch (err) {
      throw new PinnedFileChangedError(`${pin.path} cannot be read as it was when the run started (${(err as Error).message})`);
    }
    if (now === pin.sha256) continue;
    const was = pin.sha256 === null ? 'absent' : `sha256 ${pin.sha256.slice(0, 12)}…`;
    const is = now === null ? 'now absent' : `now sha256 ${now.slice(0, 12)}…`;
    throw new PinnedFileChangedError(`${pin.path} changed after the run started (${was} when the human saw it, ${is})`);
  }
}
