/**
 * The model-alone baseline's answer applied to the files a task names: each fenced code block goes
 * to one file, and replaces in it the functions the block defines (with the imports the block adds),
 * or the whole file when the block defines none of the file's functions. Pure text work.
 */

export interface CodeBlock {
  /** The path the line before the fence names, when it names one of the task's files. */
  path?: string;
  code: string;
}

const FENCE = /^[ \t]*(`{3,}|~{3,})[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;

/** The fenced code blocks of a reply, each with the file the text just before it names (if any of `paths`). */
export function codeBlocks(reply: string, paths: string[]): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const match of reply.matchAll(FENCE)) {
    const before = reply.slice(Math.max(0, (match.index ?? 0) - 200), match.index ?? 0).split('\n').filter((line) => line.trim()).at(-1) ?? '';
    const named = [...paths].sort((a, b) => b.length - a.length).find((p) => before.includes(p));
    blocks.push({ code: match[2] ?? '', ...(named ? { path: named } : {}) });
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
const JS_DEF = /^(?:export\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/;

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
    const code = (lines[i] ?? '').replace(/\/\/.*$/, '').replace(/(['"`])(?:\\.|(?!\1).)*\1/g, '""');
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

export function languageOf(path: string): 'python' | 'javascript' | undefined {
  if (/\.py$/.test(path)) return 'python';
  if (/\.(c|m)?js$/.test(path)) return 'javascript';
  return undefined;
}

const IMPORT_LINE: Record<'python' | 'javascript', RegExp> = {
  python: /^(import\s+\S|from\s+\S+\s+import\s)/,
  javascript: /^(const|let|var)\s+[^=]+=\s*require\(|^import\s/,
};

/**
 * The file after one code block of the answer: the block's functions that the file defines replace
 * the file's (and the block's imports the file lacks go on top); a block that defines none of the
 * file's functions, or a file of another language, is the whole new file.
 */
export function applyBlock(original: string, block: string, path: string): string {
  const language = languageOf(path);
  const code = block.endsWith('\n') ? block : `${block}\n`;
  if (!language) return code;
  const ours = topLevelFunctions(original, language);
  const theirs = topLevelFunctions(code, language).filter((def) => ours.some((o) => o.name === def.name));
  if (theirs.length === 0) return code;
  const blockLines = code.split('\n');
  const lines = original.split('\n');
  // From the bottom up, so earlier spans keep their line numbers.
  for (const def of [...ours].sort((a, b) => b.start - a.start)) {
    const replacement = theirs.find((t) => t.name === def.name);
    if (!replacement) continue;
    lines.splice(def.start, def.end - def.start, ...blockLines.slice(replacement.start, replacement.end));
  }
  const imports = blockLines.filter((line) => IMPORT_LINE[language].test(line) && !lines.includes(line));
  return [...imports, ...lines].join('\n');
}

/**
 * Every named file the answer changes, with its new text. A block that names a file goes to it; of
 * the others, each file takes the first that defines one of its functions, else the next in order.
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
  for (const file of files.filter((f) => !written.has(f.path))) {
    const language = languageOf(file.path);
    const names = language ? topLevelFunctions(file.text, language).map((d) => d.name) : [];
    const defining = language ? free.find((b) => topLevelFunctions(b.code, language).some((d) => names.includes(d.name))) : undefined;
    const block = defining ?? free[0];
    if (!block) break;
    free.splice(free.indexOf(block), 1);
    apply(file, block);
  }
  return written;
}
