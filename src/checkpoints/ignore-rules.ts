import { closeSync, constants, fstatSync, lstatSync, openSync, readSync as readSyncFs } from 'node:fs';
import path from 'node:path';

/** One line of a `.gitignore` (or of the operator's exclude list), compiled. */
interface Pattern {
  negated: boolean;
  dirOnly: boolean;
  /** Matched against the path relative to the file's directory when anchored, else against the last name. */
  anchored: boolean;
  regex: RegExp;
}

const CLASSES: Record<string, string> = {
  alnum: 'A-Za-z0-9', alpha: 'A-Za-z', blank: ' \\t', cntrl: '\\x00-\\x1f\\x7f', digit: '0-9', graph: '!-~',
  lower: 'a-z', print: ' -~', punct: '!-/:-@\\[-`{-~', space: ' \\t\\n\\r\\f\\v', upper: 'A-Z', xdigit: '0-9A-Fa-f',
};

const escapeRegex = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** git's wildmatch with WM_PATHNAME as a RegExp: `*` and `?` stop at `/`, `**` between slashes spans directories. */
function wildmatchRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; ) {
    const c = glob[i]!;
    if (c === '*') {
      let stars = 0;
      while (glob[i] === '*') {
        stars += 1;
        i += 1;
      }
      const before = out.length === 0 || glob[i - stars - 1] === '/';
      const after = i === glob.length || glob[i] === '/';
      if (stars >= 2 && before && after) {
        if (i === glob.length) out += '.*';
        else {
          // `**/`: zero or more whole directories.
          out += '(?:.*/)?';
          i += 1;
        }
      } else out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
      i += 1;
    } else if (c === '[') {
      const end = bracketEnd(glob, i);
      if (end < 0) {
        out += '\\[';
        i += 1;
        continue;
      }
      let body = glob.slice(i + 1, end);
      let negate = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negate = true;
        body = body.slice(1);
      }
      let set = '';
      for (let j = 0; j < body.length; ) {
        const named = /^\[:([a-z]+):\]/.exec(body.slice(j));
        if (named) {
          set += CLASSES[named[1]!] ?? '';
          j += named[0].length;
        } else if (body[j] === '\\' && j + 1 < body.length) {
          set += escapeRegex(body[j + 1]!);
          j += 2;
        } else if (body[j + 1] === '-' && j + 2 < body.length) {
          set += `${escapeRegex(body[j]!)}-${escapeRegex(body[j + 2]!)}`;
          j += 3;
        } else {
          set += escapeRegex(body[j]!);
          j += 1;
        }
      }
      out += negate ? `[^/${set}]` : set ? `[${set}]` : '(?!)';
      i = end + 1;
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1]!);
      i += 2;
    } else {
      out += escapeRegex(c);
      i += 1;
    }
  }
  return new RegExp(`^${out}$`, 's');
}

/** The index of the `]` closing the bracket at `start`, or -1: a `]` first (after `!`/`^`) is a member. */
function bracketEnd(glob: string, start: number): number {
  let j = start + 1;
  if (glob[j] === '!' || glob[j] === '^') j += 1;
  if (glob[j] === ']') j += 1;
  for (; j < glob.length; j += 1) {
    if (glob[j] === '\\') j += 1;
    else if (glob.startsWith('[:', j)) {
      const close = glob.indexOf(':]', j + 2);
      if (close > 0) j = close + 1;
    } else if (glob[j] === ']') return j;
  }
  return -1;
}

/** A `.gitignore`'s lines as patterns, in order (gitignore(5)). */
export function compilePatterns(text: string): Pattern[] {
  const patterns: Pattern[] = [];
  for (const raw of text.split('\n')) {
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    // Trailing spaces go, unless escaped with a backslash.
    line = line.replace(/(?<!\\) +$/, '');
    if (line === '' || line.startsWith('#')) continue;
    let negated = false;
    if (line.startsWith('!')) {
      negated = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith('/') && !line.endsWith('\\/')) {
      dirOnly = true;
      line = line.replace(/\/+$/, '');
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    patterns.push({ negated, dirOnly, anchored, regex: wildmatchRegex(line) });
  }
  return patterns;
}

/** The last pattern of the list that matches: true ignored, false re-included, undefined none. */
function verdict(patterns: readonly Pattern[], rel: string, isDir: boolean): boolean | undefined {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  for (let i = patterns.length - 1; i >= 0; i -= 1) {
    const pattern = patterns[i]!;
    if (pattern.dirOnly && !isDir) continue;
    if (pattern.regex.test(pattern.anchored ? rel : base)) return !pattern.negated;
  }
  return undefined;
}

/** `.gitignore` files are read up to this size; git reads them whole, a hostile one only costs memory. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * Which workspace paths `git ls-files --exclude-standard -x <exclude>` leaves out, decided in the
 * worker process: the operator's exclude list first (git's command-line patterns outrank every
 * `.gitignore`, their `!` lines included), then each directory's `.gitignore` from the deepest up,
 * the first with a matching pattern (or negation) deciding, the last matching line of it winning.
 * The store's own `info/exclude` is empty and core.excludesFile is /dev/null: nothing else counts.
 * A `.gitignore` that is not a regular file is read as empty: a symlink (git 2.32 on does not
 * follow one either), a FIFO or device (git would block on it; it is named in what was left out).
 */
export class IgnoreRules {
  private readonly exclude: Pattern[];
  /** Per directory ('' for the root): its `.gitignore`'s patterns, or null when it has none. */
  private readonly dirs = new Map<string, Pattern[] | null>();
  /** Special `.gitignore` files (FIFO, device) met so far, workspace-relative. */
  readonly specialIgnores: string[] = [];

  constructor(
    private readonly root: string,
    exclude: readonly string[],
  ) {
    this.exclude = compilePatterns(exclude.join('\n'));
  }

  private rulesOf(dir: string): Pattern[] | null {
    let rules = this.dirs.get(dir);
    if (rules !== undefined) return rules;
    rules = null;
    const file = path.join(this.root, dir, '.gitignore');
    try {
      const stats = lstatSync(file);
      if (stats.isFile()) {
        const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        try {
          const open = fstatSync(fd);
          if (open.isFile()) {
            const bytes = Buffer.alloc(Math.min(open.size, MAX_IGNORE_FILE_BYTES));
            let read = 0;
            while (read < bytes.length) {
              const n = readSync(fd, bytes, read);
              if (n === 0) break;
              read += n;
            }
            rules = compilePatterns(bytes.subarray(0, read).toString('utf8'));
          }
        } finally {
          closeSync(fd);
        }
      } else if (stats.isFIFO() || stats.isCharacterDevice() || stats.isBlockDevice()) {
        this.specialIgnores.push(dir ? `${dir}/.gitignore` : '.gitignore');
      }
    } catch {
      // None, or gone meanwhile.
    }
    this.dirs.set(dir, rules);
    return rules;
  }

  /** Whether `rel` (workspace-relative, `/`-separated) is ignored, its parents taken as not ignored; `isDir` for a directory. */
  ignored(rel: string, isDir: boolean): boolean {
    const cmdline = verdict(this.exclude, rel, isDir);
    if (cmdline !== undefined) return cmdline;
    const parts = rel.split('/');
    for (let depth = parts.length - 1; depth >= 0; depth -= 1) {
      const rules = this.rulesOf(parts.slice(0, depth).join('/'));
      if (!rules) continue;
      const local = verdict(rules, parts.slice(depth).join('/'), isDir);
      if (local !== undefined) return local;
    }
    return false;
  }

  /** Whether `rel` or a directory on its way is ignored: what a known-path checkpoint asks of a written file. */
  ignoredOnTheWay(rel: string): boolean {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i += 1) if (this.ignored(parts.slice(0, i).join('/'), i < parts.length)) return true;
    return false;
  }
}

function readSync(fd: number, buffer: Buffer, offset: number): number {
  return readSyncFs(fd, buffer, offset, buffer.length - offset, null);
}
