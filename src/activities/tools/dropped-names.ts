/**
 * The top-level names a JavaScript or Python file defines or exports, read line by line from the
 * start of each line (no parser: a whole-file write is checked in well under a millisecond a
 * 100 KiB, and every pattern is anchored with no nested repetition, so a hostile file costs time
 * linear in its size). Enough to notice the commonest slip of a small model's whole-file write:
 * the function alone, its `module.exports` or a sibling function gone.
 */
import { sourceLanguageOf } from '../../loop/source-language';

const JS_DEFINITION = /^(?:export\s+(?:default\s+)?)?(?:async\s+)?(?:function\s*(?:\*\s*)?|class\s+|const\s+|let\s+|var\s+)([A-Za-z_$][\w$]*)/;
const JS_EXPORT_PROPERTY = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=/;
const JS_EXPORT_OBJECT = /^module\.exports\s*=\s*\{/;
const JS_EXPORT_ONE = /^module\.exports\s*=\s*([A-Za-z_$][\w$]*)\s*(?:;\s*)?$/;
const JS_EXPORT_LIST = /^export\s*\{/;
const PY_DEFINITION = /^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;
/** An export object's items are read up to this many characters after its brace. */
const EXPORT_OBJECT_CHARS = 4096;
const MAX_NAMED = 8;
/** Export objects read per file: a file of nothing but `module.exports = {` lines costs no more than this many reads. */
const MAX_EXPORT_OBJECTS = 16;

type Language = 'js' | 'py';

function languageOf(filePath: string): Language | undefined {
  const language = sourceLanguageOf(filePath);
  if (language === 'python') return 'py';
  return language === 'javascript' || language === 'jsx' || language === 'typescript' ? 'js' : undefined;
}

/** Each item's leading name of `{ a, b: c, d }` (the keys: what a `require` of the file sees). */
function objectItems(text: string): string[] {
  const close = text.indexOf('}');
  const body = text.slice(0, close < 0 ? EXPORT_OBJECT_CHARS : Math.min(close, EXPORT_OBJECT_CHARS));
  return body
    .split(',')
    .map((item) => IDENTIFIER.exec(item.trim())?.[0])
    .filter((name): name is string => name !== undefined);
}

interface Names {
  defined: Set<string>;
  exported: Set<string>;
}

/** Whether a write of this file is checked for the names it drops (JavaScript, TypeScript, Python). */
export function namesChecked(filePath: string): boolean {
  return languageOf(filePath) !== undefined;
}

export function topLevelNames(filePath: string, text: string): Names | undefined {
  const language = languageOf(filePath);
  if (language === undefined) return undefined;
  const names: Names = { defined: new Set(), exported: new Set() };
  let offset = 0;
  let objects = 0;
  for (const line of text.split('\n')) {
    const lineStart = offset;
    offset += line.length + 1;
    if (language === 'py') {
      const match = PY_DEFINITION.exec(line);
      if (match) names.defined.add(match[1]!);
      continue;
    }
    const definition = JS_DEFINITION.exec(line);
    if (definition) {
      names.defined.add(definition[1]!);
      if (line.startsWith('export')) names.exported.add(definition[1]!);
    }
    const property = JS_EXPORT_PROPERTY.exec(line);
    if (property) names.exported.add(property[1]!);
    const one = JS_EXPORT_ONE.exec(line);
    if (one) names.exported.add(one[1]!);
    const brace = objects < MAX_EXPORT_OBJECTS ? (JS_EXPORT_OBJECT.exec(line) ?? JS_EXPORT_LIST.exec(line)) : null;
    if (brace) objects += 1;
    if (brace) for (const name of objectItems(text.slice(lineStart + brace[0].length, lineStart + brace[0].length + EXPORT_OBJECT_CHARS))) names.exported.add(name);
  }
  return names;
}

/** Files up to this size are checked for the names a write or an edit drops. */
export const NAMES_CHECKED_BYTES = 1024 * 1024;

/** What a write or an edit took away from a file's top-level names, and what it added. */
export interface DroppedNames {
  lostExports: string[];
  lostDefinitions: string[];
  /** Names defined or exported now that were neither before (a rename's new name). */
  added: string[];
  /** Lost definitions the file still exports. */
  dangling: string[];
}

/** The names a write or an edit dropped; undefined when none, or when the file's language is not checked. */
export function droppedNames(filePath: string, before: string, after: string): DroppedNames | undefined {
  const old = topLevelNames(filePath, before);
  const now = topLevelNames(filePath, after);
  if (!old || !now) return undefined;
  const lostExports = [...old.exported].filter((name) => !now.exported.has(name));
  const lostDefinitions = [...old.defined].filter((name) => !now.defined.has(name) && !lostExports.includes(name));
  if (lostExports.length === 0 && lostDefinitions.length === 0) return undefined;
  const added = [...new Set([...now.exported, ...now.defined])].filter((name) => !old.exported.has(name) && !old.defined.has(name));
  return { lostExports, lostDefinitions, added, dangling: lostDefinitions.filter((name) => now.exported.has(name)) };
}

/**
 * What a write (the whole file) or an edit took away that the file had (an export, a top-level
 * function or class), as a sentence. A name still exported but no longer defined comes first:
 * `module.exports = { shout }` without `shout` makes every require of the file throw, and the
 * 1.5B model, having edited `shout` into another function, answered with the file so.
 */
export function droppedNamesNote({ lostExports, lostDefinitions, added, dangling }: DroppedNames, by: 'write' | 'edit' = 'write'): string {
  const list = (names: string[]) => names.slice(0, MAX_NAMED).join(', ') + (names.length > MAX_NAMED ? `, and ${names.length - MAX_NAMED} more` : '');
  const broken = dangling.length > 0 ? ` It still exports ${list(dangling)}, which it no longer defines: loading the file now fails.` : '';
  const parts = [
    ...(lostExports.length > 0 ? [`no longer exports ${list(lostExports)}`] : []),
    ...(lostDefinitions.length > 0 ? [`no longer defines ${list(lostDefinitions)}`] : []),
  ];
  const lost = [...lostExports, ...lostDefinitions];
  const subject = (joined: string) => (by === 'write' ? `this write replaced the whole file${joined} it` : 'after this edit the file');
  // A rename drops a name and adds one: telling the model to write the old name back undoes it.
  if (added.length > 0) {
    const them = lost.length === 1 ? 'it' : 'them';
    return `Note: ${subject(';')} ${parts.join(' and ')}, which it did before, and now has ${list(added)}.${broken} If a test or another file still uses ${list(lost)}, write ${them} back; if you renamed ${them}, change the files that use the old ${lost.length === 1 ? 'name' : 'names'} too (grep for ${them}).`;
  }
  return `Note: ${subject(', and')} ${parts.join(' and ')}, which it did before.${broken} If they are still needed (a test or another file uses them), write them back.`;
}

/** Every name a write or an edit dropped, for the search of the lines that still use them. */
export function lostNames(dropped: DroppedNames): string[] {
  return [...dropped.lostExports, ...dropped.lostDefinitions];
}
