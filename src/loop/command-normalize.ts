import { parseShell, type Word } from './shell-parse';

/**
 * A simple command as rules and the dangerous-command checks see it: wrappers (`env`, `sudo`,
 * `xargs`, `sh -c`, ...), leading assignments and git's global options removed, the command
 * word reduced to its basename.
 */
export interface NormalizedCommand {
  argv: Word[];
  /** What was removed: wrapper names, `assign` for `VAR=x`, `git-config` for git's `-c` and friends. */
  wrappers: string[];
  /** False when a removed part was computed, so the real command may differ. */
  certain: boolean;
}

const MAX_DEPTH = 4;
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish']);
/** Keywords that may precede a command: `if git push; then ...`, `! git push`, `{ git push; }`. */
const KEYWORDS: ReadonlySet<string> = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'while', 'until', 'do']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The wrappers, each with its options whose value is the next word. */
const VALUE_OPTIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['env', new Set(['-u', '--unset', '-C', '--chdir'])],
  ['command', new Set<string>()],
  ['builtin', new Set<string>()],
  ['exec', new Set(['-a'])],
  ['nohup', new Set<string>()],
  ['time', new Set(['-f', '--format', '-o', '--output'])],
  ['nice', new Set(['-n', '--adjustment'])],
  ['timeout', new Set(['-s', '--signal', '-k', '--kill-after'])],
  ['stdbuf', new Set(['-i', '-o', '-e', '--input', '--output', '--error'])],
  [
    'xargs',
    new Set(['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '--max-lines', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var']),
  ],
  [
    'sudo',
    new Set(['-u', '--user', '-g', '--group', '-C', '--close-from', '-D', '--chdir', '-h', '--host', '-p', '--prompt', '-r', '--role', '-t', '--type', '-U', '--other-user', '-T', '--command-timeout']),
  ],
  ['doas', new Set(['-u', '-C'])],
]);
const GIT_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds', '--attr-source']);
/** git global options that change what the command does, not just where it runs. */
const GIT_CONFIG_OPTIONS: ReadonlySet<string> = new Set(['-c', '--config-env', '--exec-path', '--git-dir', '--work-tree']);

export function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || path;
}

/** Skips a wrapper's options from `start`; returns the index of the wrapped command, or -1. */
function skipOptions(words: readonly Word[], start: number, wrapper: string, state: { certain: boolean }): number {
  const values = VALUE_OPTIONS.get(wrapper) ?? new Set<string>();
  let i = start;
  // timeout's first operand is its duration, not the command.
  let durationPending = wrapper === 'timeout';
  while (i < words.length) {
    const w = words[i] as Word;
    if (!w.literal) state.certain = false;
    if (w.text === '--') return i + 1;
    if (wrapper === 'env' && ASSIGNMENT.test(w.text)) {
      i++;
    } else if (w.text.startsWith('-') && w.text.length > 1) {
      const name = w.text.split('=')[0] as string;
      const takesValue = values.has(name) && !w.text.includes('=');
      i += takesValue ? 2 : 1;
      if (takesValue && words[i - 1] && !(words[i - 1] as Word).literal) state.certain = false;
    } else if (durationPending) {
      durationPending = false;
      i++;
    } else {
      return i;
    }
  }
  return -1;
}

/** The script of `sh -c script`: the word after the options, if one of them holds a `c`. */
function shellScript(words: readonly Word[], start: number): { script: Word; found: true } | { found: false } {
  let sawC = false;
  for (let i = start; i < words.length; i++) {
    const w = words[i] as Word;
    if (/^(--?|\+)[A-Za-z][\w-]*$/.test(w.text)) {
      if (/^-[A-Za-z]+$/.test(w.text) && w.text.includes('c')) sawC = true;
      if (/^[-+]o$/.test(w.text)) i++;
      continue;
    }
    return sawC ? { script: w, found: true } : { found: false };
  }
  return { found: false };
}

/** find's `-exec cmd ... ;` (and -execdir, -ok, -okdir) run commands of their own. */
function findExecs(words: readonly Word[]): Word[][] {
  const found: Word[][] = [];
  for (let i = 1; i < words.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test((words[i] as Word).text)) continue;
    let end = i + 1;
    while (end < words.length && !/^[;+]$/.test((words[end] as Word).text)) end++;
    found.push(words.slice(i + 1, end));
    i = end;
  }
  return found;
}

/** Normalizes one simple command; `sh -c`, `env -S` and `find -exec` may yield several. */
export function normalizeCommand(input: readonly Word[], depth = 0): NormalizedCommand[] {
  const state = { certain: depth <= MAX_DEPTH };
  const wrappers: string[] = [];
  let words = [...input];
  const nested: NormalizedCommand[] = [];
  for (let guard = 0; guard < 64 && words.length > 0; guard++) {
    const first = words[0] as Word;
    if (first.literal && KEYWORDS.has(first.text)) {
      words = words.slice(1);
      continue;
    }
    if (first.literal && ASSIGNMENT.test(first.text)) {
      wrappers.push('assign');
      words = words.slice(1);
      continue;
    }
    if (!first.literal) break;
    const name = basename(first.text);
    if (name === 'env' && words.some((w) => /^(-S|--split-string)/.test(w.text))) {
      // `env -S 'git push'` splits its argument into words: read it as a script.
      wrappers.push('env');
      state.certain = false;
      break;
    }
    if (VALUE_OPTIONS.has(name)) {
      wrappers.push(name);
      const next = skipOptions(words, 1, name, state);
      words = next < 0 ? [] : words.slice(next);
      continue;
    }
    if (name === 'git') {
      let i = 1;
      while (i < words.length && (words[i] as Word).text.startsWith('-')) {
        const option = (words[i] as Word).text;
        const optionName = option.split('=')[0] as string;
        if (GIT_CONFIG_OPTIONS.has(optionName)) wrappers.push('git-config');
        else wrappers.push('git-global');
        if (!(words[i] as Word).literal) state.certain = false;
        i += GIT_VALUE_OPTIONS.has(optionName) && !option.includes('=') ? 2 : 1;
      }
      words = [{ text: 'git', literal: true }, ...words.slice(i)];
      break;
    }
    if (SHELLS.has(name)) {
      const script = shellScript(words, 1);
      if (script.found) {
        wrappers.push(name);
        if (!script.script.literal || depth >= MAX_DEPTH) state.certain = false;
        const parsed = parseShell(script.script.text, depth + 1);
        if (!parsed.parsed) state.certain = false;
        for (const command of parsed.commands) nested.push(...normalizeCommand(command.words, depth + 1));
        words = [];
      }
      break;
    }
    if (name === 'find') {
      for (const exec of findExecs(words)) nested.push(...normalizeCommand(exec, depth + 1));
    }
    break;
  }
  const result: NormalizedCommand[] = [];
  if (words.length > 0) {
    const first = words[0] as Word;
    const argv = [{ text: first.literal ? basename(first.text) : first.text, literal: first.literal }, ...words.slice(1)];
    result.push({ argv, wrappers, certain: state.certain });
  } else if (wrappers.length > 0 && nested.length === 0) {
    // A bare wrapper (`sudo`, `env`) still counts: the checks see what was removed.
    result.push({ argv: [], wrappers, certain: state.certain });
  }
  for (const command of nested) {
    result.push({ ...command, wrappers: [...wrappers, ...command.wrappers], certain: command.certain && state.certain });
  }
  return result;
}

/** Commands whose single-dash options are words (`find -name`), not clusters of letters. */
const WORD_OPTIONS: ReadonlySet<string> = new Set(['find', 'java', 'javac', 'go', 'gcc', 'g++', 'clang', 'dd']);

/**
 * The words rules compare: clusters of short flags split (`-rf` → `-r -f`) and each run of
 * single-letter flags sorted, so that `rm -rf`, `rm -fr` and `rm -r -f` look alike.
 */
export function matchKey(argv: readonly Word[]): Word[] {
  const split: Word[] = [];
  const splitting = !WORD_OPTIONS.has(argv[0]?.text ?? '');
  let options = true;
  for (const w of argv) {
    if (w.text === '--') options = false;
    if (splitting && options && /^-[A-Za-z]{2,}$/.test(w.text)) {
      for (const letter of w.text.slice(1)) split.push({ text: `-${letter}`, literal: w.literal });
    } else {
      split.push(w);
    }
  }
  const key: Word[] = [];
  let run: Word[] = [];
  const isFlag = (w: Word) => /^-[A-Za-z]$/.test(w.text);
  for (const w of split) {
    if (isFlag(w)) {
      run.push(w);
      continue;
    }
    key.push(...run.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0)), w);
    run = [];
  }
  key.push(...run.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0)));
  return key;
}
