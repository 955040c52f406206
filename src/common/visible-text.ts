/**
 * What a terminal or a browser would hide, rewrite or show as blank: C0 and C1 controls (ESC
 * starts the sequences that erase a line or move the cursor, CR returns to its start), DEL,
 * format characters (the bidi overrides, isolates and U+061C that reorder what is shown, zero-width
 * ones, the soft hyphen, tag characters U+E0000-U+E007F), every other default-ignorable code point
 * (U+034F, variation selectors, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0), line and
 * paragraph separators, every space but the plain one, the blank braille pattern U+2800, the
 * ideographic half fill space U+303F (a symbol drawn blank), private-use and unassigned code points
 * (no font agrees on them); a run of one is written once with its count. A command, path or tool input shown to a human
 * passes through here first, in the terminal and on the page alike, so that what they approve is
 * what runs.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Default_Ignorable_Code_Point}\p{Co}\p{Cn}\u2800\u303f]/gu;
/** A run of one hidden character, written once with its count: 3,000 blanks cannot push a command's tail off the screen. */
const RUN = /([\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Default_Ignorable_Code_Point}\p{Co}\p{Cn}\u2800\u303f])\1{3,}/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', ' ': ' ' };

function escape(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * The text with every hidden character written out (`\x1b`, `\r`, `\u202e`, `\u{e0041}`), a run of
 * four or more of one written once with its count (`\u2800{×3000}`); plain spaces stay.
 */
export function visibleText(text: string): string {
  return writeOut(text, () => false);
}

function writeOut(text: string, kept: (char: string) => boolean): string {
  return text.replace(RUN, (run: string, char: string) => (char === ' ' || kept(char) ? run : `${escape(char)}{×${[...run].length}}`)).replace(HIDDEN, (char) => (kept(char) ? char : escape(char)));
}

/** True when the text holds a character `visibleText` has to write out, other than newlines and tabs. */
export function hasHiddenCharacters(text: string): boolean {
  for (const match of text.matchAll(HIDDEN)) if (match[0] !== ' ' && match[0] !== '\n' && match[0] !== '\t') return true;
  return false;
}

/** `visibleText` line by line: for text that is meant to span lines (a notification, an error), newlines stay. */
export function visibleLines(text: string): string {
  return text.split('\n').map(visibleText).join('\n');
}

/** `visibleText` for a page that keeps white space (`<pre>`): newlines and tabs stay, the rest is written out. */
export function visibleBlock(text: string): string {
  return writeOut(text, (char) => char === '\n' || char === '\t');
}

/** `hasHiddenCharacters` over every string (and key) of a tool's input. */
export function inputHasHiddenCharacters(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return hasHiddenCharacters(value);
  if (depth > 20 || value === null || typeof value !== 'object') return false;
  const entries = Array.isArray(value) ? value.map((item) => ['', item] as const) : Object.entries(value);
  return entries.some(([key, item]) => hasHiddenCharacters(key) || inputHasHiddenCharacters(item, depth + 1));
}

/** The one warning shown beside a question whose tool or input holds such characters, in the terminal and on the page. */
export const HIDDEN_WARNING = '⚠ contains hidden or blank-looking characters (shown escaped)';

/**
 * The model's prose as a terminal may show it: like `visibleBlock` (newlines and tabs stay, so
 * code and lists keep their shape), everything else a terminal would act on or hide written out.
 * Escaped before any Markdown styling is added, so only the CLI's own styles reach the screen.
 */
export function visibleProse(text: string): string {
  return visibleBlock(text);
}

/** A hidden character as JSON's own escape: `\u001b`, `\u202e`, a pair for `\u{e0041}`. */
function jsonEscape(char: string): string {
  let out = '';
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `JSON.stringify` whose text holds no character a terminal would act on or hide: JSON writes C0
 * controls out itself but leaves C1 controls (U+009B is a CSI), DEL, bidi and tag characters raw;
 * these become `\uXXXX` escapes. The same JSON value, parsed; only the layout's spaces and newlines stay.
 */
export function visibleJson(value: unknown, replacer?: (this: unknown, key: string, value: unknown) => unknown, space?: number): string {
  const text = JSON.stringify(value, replacer, space);
  if (text === undefined) return 'null';
  return text.replace(HIDDEN, (char) => (char === ' ' || char === '\n' ? char : jsonEscape(char)));
}
