/**
 * What a terminal would hide or rewrite: C0 and C1 controls (ESC starts the sequences that erase a
 * line or move the cursor, CR returns to its start), DEL, format characters (the bidi overrides
 * and isolates that reorder what is shown, zero-width ones), line and paragraph separators, and
 * every space but the plain one. A command, path or tool input shown to a human passes through
 * `visibleText` first, so that what they approve is what runs.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}]/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', ' ': ' ' };

function escape(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The text with every hidden character written out (`\x1b`, `\r`, `\u202e`); plain spaces stay. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, escape);
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

/** `hasHiddenCharacters` over every string (and key) of a tool's input. */
export function inputHasHiddenCharacters(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return hasHiddenCharacters(value);
  if (depth > 20 || value === null || typeof value !== 'object') return false;
  const entries = Array.isArray(value) ? value.map((item) => ['', item] as const) : Object.entries(value);
  return entries.some(([key, item]) => hasHiddenCharacters(key) || inputHasHiddenCharacters(item, depth + 1));
}
