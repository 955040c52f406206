import type { ParseEntry } from 'shell-quote';
import { tokenize } from './shell-tokenizer';

/** One word of a simple command; `literal` is false when the shell would compute its value. */
export interface Word {
  text: string;
  literal: boolean;
}

/** A simple command: its words (redirections removed) and the targets of its redirections. */
export interface SimpleCommand {
  words: Word[];
  redirects: Word[];
}

export interface ShellParse {
  /** Every simple command, those inside `$(...)`, backticks and `<(...)` included. */
  commands: SimpleCommand[];
  /** No expansion, substitution, redirection, escape, brace, tilde, glob or control character. */
  literal: boolean;
  /** The tokenizer understood the command; when false, `commands` is incomplete. */
  parsed: boolean;
}

/** shell-quote puts what a `$` expansion would produce here; the raw command may not contain it. */
const EXPANSION = '\u0000';
const MAX_DEPTH = 4;

const REDIRECTS: ReadonlySet<string> = new Set(['<', '>', '>>', '>&', '<&', '&>', '&>>', '>|', '<>', '<<', '<<<', '<<-']);
/** Characters that make a word computed when unquoted: globs, braces, tilde, comment. */
const UNQUOTED_SPECIAL = /[*?[\]{}~#<>]/;

interface Prepared {
  text: string;
  literal: boolean;
  ok: boolean;
}

/**
 * One pass over the raw command, tracking quotes the way the shell does for the literal subset:
 * decides whether the command is literal, and rewrites what shell-quote gets wrong (it reads a
 * newline as a space, `#` inside a word as a comment, and keeps `\`+newline).
 */
function prepare(command: string): Prepared {
  let text = '';
  let literal = true;
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < command.length; i++) {
    const c = command.charAt(i);
    const code = c.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) literal = false;
    if (c === EXPANSION) return { text, literal: false, ok: false };
    if (quote === "'") {
      if (c === "'") quote = '';
      text += c;
      continue;
    }
    if (c === '\\') {
      literal = false;
      const next = command.charAt(i + 1);
      i++;
      if (next === '\n') continue;
      text += c + next;
      continue;
    }
    if (c === '$' || c === '`') literal = false;
    if (quote === '"') {
      if (c === '"') quote = '';
      text += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      text += c;
      continue;
    }
    if (UNQUOTED_SPECIAL.test(c)) literal = false;
    if (c === '\n' || c === '\r') {
      text += ' ; ';
      continue;
    }
    if (c === '#') {
      if (/^$|[\s;&|()<>]$/.test(text.slice(-1))) {
        while (i + 1 < command.length && command.charAt(i + 1) !== '\n') i++;
      } else {
        text += '\\#';
      }
      continue;
    }
    text += c;
  }
  return { text, literal, ok: quote === '' };
}

/** Closing index of the group opened at `open` (a `(`), or -1. Quotes are ignored: over-reading is safe. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/**
 * The scripts of `$(...)`, `<(...)`, `>(...)` and backticks, found textually wherever they are
 * (inside double quotes too, where shell-quote keeps them as plain text). Null when unbalanced.
 */
export function substitutions(command: string): string[] | null {
  const found: string[] = [];
  for (let i = 0; i < command.length; i++) {
    const c = command.charAt(i);
    if (c === '\\') {
      i++;
    } else if ((c === '$' || c === '<' || c === '>') && command.charAt(i + 1) === '(') {
      const end = closingParen(command, i + 1);
      if (end < 0) return null;
      found.push(command.slice(i + 2, end));
    } else if (c === '`') {
      let end = i + 1;
      while (end < command.length && command.charAt(end) !== '`') end += command.charAt(end) === '\\' ? 2 : 1;
      if (end >= command.length) return null;
      found.push(command.slice(i + 1, end));
      i = end;
    }
  }
  return found;
}

function word(text: string, literal: boolean): Word {
  const computed = !literal || text.includes(EXPANSION) || text.includes('`') || /[~{}]|\[.*\]/.test(text);
  return { text: text.split(EXPANSION).join('$'), literal: !computed };
}

/** Splits shell-quote's tokens into simple commands at every operator except redirections. */
function simpleCommands(entries: ReadonlyArray<ParseEntry | string>): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [] };
  let redirecting = false;
  const flush = () => {
    if (current.words.length > 0 || current.redirects.length > 0) commands.push(current);
    current = { words: [], redirects: [] };
  };
  for (const entry of entries) {
    let next: Word | undefined;
    if (typeof entry === 'string') next = word(entry, true);
    else if ('comment' in entry) continue;
    else if (entry.op === 'glob') next = word(entry.pattern, false);
    else if (REDIRECTS.has(entry.op)) {
      redirecting = true;
      continue;
    } else {
      redirecting = false;
      flush();
      continue;
    }
    if (redirecting) current.redirects.push(next);
    else current.words.push(next);
    redirecting = false;
  }
  flush();
  return commands;
}

/** Parses a command line into simple commands (see ShellParse); never throws. */
export function parseShell(command: string, depth = 0): ShellParse {
  const prepared = prepare(command);
  const nested = substitutions(command);
  if (!prepared.ok || nested === null || depth > MAX_DEPTH) {
    return { commands: [], literal: false, parsed: false };
  }
  let entries: Array<ParseEntry | string>;
  try {
    entries = tokenize(prepared.text, () => EXPANSION);
  } catch {
    return { commands: [], literal: false, parsed: false };
  }
  const result: ShellParse = { commands: simpleCommands(entries), literal: prepared.literal, parsed: true };
  for (const script of nested) {
    const inner = parseShell(script, depth + 1);
    result.commands.push(...inner.commands);
    result.parsed &&= inner.parsed;
  }
  return result;
}
