/**
 * Text as the approver must see it: control characters, bidi overrides and zero-width characters
 * written out (`\u001b`, `\u202e`), so a command cannot hide part of itself or reorder what is
 * shown. Newlines and tabs stay (the page keeps white space). HTML escaping is the template's.
 */
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export function visible(text: string): string {
  return text.replace(HIDDEN, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A tool input as shown for approval: JSON, indented, every string's characters made visible. */
export function visibleJson(value: unknown): string {
  return visible(JSON.stringify(value, null, 2) ?? String(value));
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
