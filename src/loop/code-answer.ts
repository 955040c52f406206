/**
 * A model's code answer applied to the files it was shown: each fenced code block goes to one file,
 * and replaces in it the functions the block defines (with the imports the block adds), or the
 * whole file when the block defines none of the file's functions. Pure text work, linear in the
 * reply and the files whatever they hold (the reply is the model's, the files the workspace's: no
 * pattern here backtracks). The model-alone baseline of `bareagent eval` and a run's draft turn
 * (src/workflows/draft-turn.ts) both ask with `fileAnswerRequest` and apply with `applyAnswer`.
 */

import { sourceLanguageOf } from './source-language';

export interface NamedFile {
  path: string;
  text: string;
}

/** The one request: the task's prompt, the files it names fenced under their paths, and what to answer with. */
export function fileAnswerRequest(prompt: string, files: NamedFile[]): string {
  const shown = files.map((file) => `${file.path}:\n\`\`\`${sourceLanguageOf(file.path) ?? ''}\n${file.text}${file.text.endsWith('\n') ? '' : '\n'}\`\`\``);
  const ask = files.length
    ? 'Reply with the finished code: each file you change, complete, in one fenced code block, with its path on the line before the block.'
    : 'Answer in plain text.';
  return [prompt, ...shown, ask].join('\n\n');
}

export interface CodeBlock {
  /** The path the line before the fence names, when it names one of the task's files. */
  path?: string;
  code: string;
}

/** A fence line: three or more backticks or tildes, after at most some indentation. */
function fenceOf(line: string): string | undefined {
  const trimmed = line.replace(/^[ \t]*/, '');
  const mark = trimmed[0];
  if (mark !== '`' && mark !== '~') return undefined;
  let length = 0;
  while (trimmed[length] === mark) length++;
  return length >= 3 ? trimmed.slice(0, length) : undefined;
}

/** A comment line that is only a path: `// src/sum.js`, `# ./solution.py`. */
const PATH_LABEL = /^\s*(?:\/\/|#)\s*(?:\.\/)?(\S+?):?\s*$/;

/**
 * The file a block names in a comment of its first line, as models often label a block (`// src/sum.js`)
 * instead of naming it on the line before the fence. The label is not code: it is dropped from the block.
 */
function labelOf(body: string[], paths: string[]): string | undefined {
  const first = body.find((line) => line.trim() !== '');
  const label = first === undefined ? undefined : PATH_LABEL.exec(first)?.[1];
  return label !== undefined && paths.includes(label) ? label : undefined;
}

/** The fenced code blocks of a reply, each with the file the last non-blank line before it names (if any of `paths`). Read line by line: an unclosed fence ends nothing. */
export function codeBlocks(reply: string, paths: string[]): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const byLength = [...paths].sort((a, b) => b.length - a.length);
  const lines = reply.split('\n');
  let lastText = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = fenceOf(line);
    if (fence === undefined) {
      if (line.trim()) lastText = line;
      continue;
    }
    let close = i + 1;
    while (close < lines.length && !(fenceOf(lines[close]!) === fence && lines[close]!.trim() === fence)) close++;
    if (close >= lines.length) break;
    const body = lines.slice(i + 1, close);
    const before = byLength.find((p) => lastText.slice(-200).includes(p));
    const labelled = before === undefined ? labelOf(body, paths) : undefined;
    if (labelled !== undefined) body.splice(body.findIndex((l) => l.trim() !== ''), 1);
    const named = before ?? labelled;
    blocks.push({ code: body.join('\n') + (body.length > 0 ? '\n' : ''), ...(named ? { path: named } : {}) });
    lastText = '';
    i = close;
  }
  return blocks;
}

interface Definition {
  name: string;
  start: number;
  /** One past the last line. */
  end: number;
}

const PY_DEF = /^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/;
const JS_DEF = /^(?:export\s+)?(?:async\s+)?function\s*(?:\*\s*)?([A-Za-z_$][\w$]*)\s*\(/;

/** Top-level functions of Python or JavaScript source, by line span (a Python body ends at the next unindented line). */
export function topLevelFunctions(source: string, language: 'python' | 'javascript'): Definition[] {
  const lines = source.split('\n');
  const found: Definition[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const match = (language === 'python' ? PY_DEF : JS_DEF).exec(line);
    if (!match) continue;
    let start = i;
    // A Python function's decorators belong to it.
    while (language === 'python' && start > 0 && /^@/.test(lines[start - 1] ?? '')) start--;
    let end = i + 1;
    if (language === 'python') {
      while (end < lines.length && (/^\s/.test(lines[end] ?? '') || (lines[end] ?? '').trim() === '')) end++;
      while (end > i + 1 && (lines[end - 1] ?? '').trim() === '') end--;
    } else {
      end = jsFunctionEnd(lines, i);
    }
    found.push({ name: match[1] ?? '', start, end });
    i = end - 1;
  }
  return found;
}

/** The line after a JavaScript function's closing brace, by counting braces outside strings and comments (roughly). */
function jsFunctionEnd(lines: string[], first: number): number {
  let depth = 0;
  let opened = false;
  for (let i = first; i < lines.length; i++) {
    const code = withoutStrings(lines[i] ?? '');
    for (const ch of code) {
      if (ch === '{') {
        depth++;
        opened = true;
      } else if (ch === '}') depth--;
    }
    if (opened && depth <= 0) return i + 1;
  }
  return lines.length;
}

/** A line without its string literals and `//` comment, scanned once (a regular expression for this backtracked on backslashes). */
function withoutStrings(line: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '/' && line[i + 1] === '/') break;
    if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else out += ch;
  }
  return out;
}

/** The languages whose top-level functions an answer replaces one by one; any other file is written whole. */
export function languageOf(path: string): 'python' | 'javascript' | undefined {
  const language = sourceLanguageOf(path);
  return language === 'python' || language === 'javascript' ? language : undefined;
}

const IMPORT_LINE: Record<'python' | 'javascript', RegExp> = {
  python: /^(import\s+\S|from\s+\S+\s+import\s)/,
  javascript: /^(?:const|let|var)\s[^=]*=\s*require\(|^import\s/,
};

/**
 * The file after one code block of the answer: the block's functions that the file defines replace
 * the file's (and the block's imports the file lacks go on top); a block that defines none of the
 * file's functions but adds functions it uses them beside is merged in (`addedFunctions`); any other
 * block, or a file of another language, is the whole new file.
 */
export function applyBlock(original: string, block: string, path: string): string {
  const language = languageOf(path);
  const code = block.endsWith('\n') ? block : `${block}\n`;
  if (!language) return code;
  const ours = topLevelFunctions(original, language);
  const theirs = topLevelFunctions(code, language).filter((def) => ours.some((o) => o.name === def.name));
  const blockLines = code.split('\n');
  let lines: string[];
  if (theirs.length === 0) {
    const merged = addedFunctions(original, blockLines, language, ours);
    if (!merged) return code;
    lines = merged;
  } else {
    lines = original.split('\n');
    // From the bottom up, so earlier spans keep their line numbers.
    for (const def of [...ours].sort((a, b) => b.start - a.start)) {
      const replacement = theirs.find((t) => t.name === def.name);
      if (!replacement) continue;
      lines.splice(def.start, def.end - def.start, ...blockLines.slice(replacement.start, replacement.end));
    }
  }
  const imports = blockLines.filter((line) => IMPORT_LINE[language].test(line) && !lines.includes(line));
  return [...imports, ...lines].join('\n');
}

/** A block that defines none of the file's functions is searched for this many of their names at most (one scan of the block each). */
const MAX_NAMES_LOOKED_FOR = 200;
/** A `module.exports` statement on one line: `module.exports = { a, b };` or `module.exports = a;`. */
const ONE_LINE_EXPORTS = /^module\.exports\s*=\s*(?:\{[^{}]*\}|[A-Za-z_$][\w$]*)\s*;?\s*$/;

/** Whether `name` occurs in `text` as a whole identifier (indexOf, no pattern built from the name). */
function mentions(text: string, name: string): boolean {
  const partOfName = (ch: string | undefined) => ch !== undefined && /[\w$]/.test(ch);
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    if (!partOfName(text[at - 1]) && !partOfName(text[at + name.length])) return true;
  }
  return false;
}

/**
 * A block that adds functions and still uses a function of the file that it does not define
 * (`module.exports = { add, multiply }` below a new `multiply`) cannot be the whole file: as one it
 * would leave `add` undefined. Its functions go after the file's last function, and its
 * one-line `module.exports` takes the place of the file's (or ends a file that has none). Undefined
 * when the block is not such an addition.
 */
function addedFunctions(original: string, blockLines: string[], language: 'python' | 'javascript', ours: Definition[]): string[] | undefined {
  const block = blockLines.join('\n');
  const added = topLevelFunctions(block, language);
  if (added.length === 0 || ours.length === 0 || ours.length > MAX_NAMES_LOOKED_FOR) return undefined;
  if (!ours.some((def) => mentions(block, def.name))) return undefined;
  const lines = original.split('\n');
  const after = Math.max(...ours.map((def) => def.end));
  const merged = [...lines.slice(0, after), ...added.flatMap((def) => ['', ...blockLines.slice(def.start, def.end)]), ...lines.slice(after)];
  if (language === 'javascript') {
    const exported = blockLines.find((line) => ONE_LINE_EXPORTS.test(line));
    const at = merged.findIndex((line, i) => i >= after && ONE_LINE_EXPORTS.test(line));
    if (exported !== undefined && at >= 0) merged[at] = exported;
    else if (exported !== undefined && !merged.some((line) => line.startsWith('module.exports'))) merged.splice(merged.at(-1) === '' ? merged.length - 1 : merged.length, 0, '', exported);
  }
  return merged;
}

/**
 * Every named file the answer changes, with its new text. A block that names a file (on the line
 * before it, or in a comment of its first line) goes to it; of the others, each file takes the first
 * that defines one of its functions, and the files left take the blocks left, in order.
 */
export function applyAnswer(reply: string, files: Array<{ path: string; text: string }>): Map<string, string> {
  const blocks = codeBlocks(reply, files.map((f) => f.path));
  const written = new Map<string, string>();
  const apply = (file: { path: string; text: string }, block: CodeBlock) =>
    written.set(file.path, applyBlock(written.get(file.path) ?? file.text, block.code, file.path));
  for (const block of blocks) {
    const file = files.find((f) => f.path === block.path);
    if (file) apply(file, block);
  }
  const free = blocks.filter((b) => !b.path);
  const take = (file: { path: string; text: string }, block: CodeBlock) => {
    free.splice(free.indexOf(block), 1);
    apply(file, block);
  };
  // A block that defines a file's function is that file's, whatever the order the files came in:
  // the test file shown first must not take the code of the file it tests.
  for (const file of files.filter((f) => !written.has(f.path))) {
    const language = languageOf(file.path);
    const names = language ? topLevelFunctions(file.text, language).map((d) => d.name) : [];
    const defining = language && names.length > 0 ? free.find((b) => topLevelFunctions(b.code, language).some((d) => names.includes(d.name))) : undefined;
    if (defining) take(file, defining);
  }
  for (const file of files.filter((f) => !written.has(f.path))) {
    const block = free[0];
    if (!block) break;
    take(file, block);
  }
  return written;
}
