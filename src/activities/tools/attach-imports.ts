/**
 * The local files an attached file imports, for a model that would otherwise guess what
 * `require('./settings')` holds: relative JavaScript and TypeScript imports (`require`, `import`,
 * `export ... from`) and Python's relative imports and sibling modules. Pure text work on the
 * numbered attachment; the caller checks each candidate with the run's guard and reads it through
 * read_file's own code.
 */
import path from 'node:path';
import { sourceLanguageOf } from '../../loop/source-language';

/** Import specifiers read from one file at most: a file of a thousand requires attaches no more. */
const MAX_SPECIFIERS = 16;
const MAX_SPECIFIER_CHARS = 200;

const JS_IMPORT = /(?:\brequire\s*\(\s*|\bfrom\s+|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"\n]{0,200})['"]/g;
const PY_FROM = /^\s*from\s+(\.*)([A-Za-z_][\w.]{0,200})?\s+import\b/;
const PY_IMPORT = /^\s*import\s+([A-Za-z_][\w.]{0,200})/;
const NUMBERED = /^\d+: /;

const JS_EXTENSIONS = ['.js', '.ts', '.mjs', '.cjs', '.jsx', '.tsx', '.json'];

/** A workspace-relative path that stays inside the workspace, or undefined. */
function inside(candidate: string): string | undefined {
  const normal = path.posix.normalize(candidate);
  return normal === '..' || normal.startsWith('../') || path.posix.isAbsolute(normal) ? undefined : normal;
}

/** For each import of `text` (numbered as read_file numbers it) of the file `filePath`, the paths it may name, in the order a resolver tries them. */
export function importCandidates(filePath: string, text: string): string[][] {
  const language = sourceLanguageOf(filePath);
  const dir = path.posix.dirname(filePath);
  const found: string[][] = [];
  const seen = new Set<string>();
  const add = (paths: Array<string | undefined>) => {
    const kept = paths.filter((p): p is string => p !== undefined && p !== filePath);
    const key = kept[0];
    if (key === undefined || seen.has(key) || found.length >= MAX_SPECIFIERS) return;
    seen.add(key);
    found.push(kept);
  };
  if (language === 'javascript' || language === 'jsx' || language === 'typescript') {
    for (const match of text.matchAll(JS_IMPORT)) {
      const spec = match[1]!;
      if (spec.length > MAX_SPECIFIER_CHARS) continue;
      const base = inside(path.posix.join(dir, spec));
      if (base === undefined) continue;
      const hasExtension = path.posix.extname(base) !== '';
      add([...(hasExtension ? [base] : []), ...JS_EXTENSIONS.map((ext) => `${base}${ext}`), ...['index.js', 'index.ts'].map((index) => inside(path.posix.join(base, index)))]);
      if (found.length >= MAX_SPECIFIERS) break;
    }
  } else if (language === 'python') {
    for (const numbered of text.split('\n')) {
      const line = numbered.replace(NUMBERED, '');
      const from = PY_FROM.exec(line);
      const plain = from ? undefined : PY_IMPORT.exec(line);
      if (!from && !plain) continue;
      const dots = from?.[1]?.length ?? 0;
      const module = (from ? from[2] : plain![1]) ?? '';
      if (!module) continue;
      const parts = module.split('.').join('/');
      // `from . import x` names no module file; `..x` climbs one directory per dot past the first.
      const start = dots > 0 ? path.posix.join(dir, ...Array<string>(dots - 1).fill('..')) : dir;
      const base = inside(path.posix.join(start, parts));
      if (base === undefined) continue;
      add([`${base}.py`, `${base}/__init__.py`].map(inside));
      if (found.length >= MAX_SPECIFIERS) break;
    }
  }
  return found;
}
