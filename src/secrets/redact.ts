import { secretNeedles } from './secret-forms';
import { textView, type ViewOptions } from './text-view';
import { MIN_SECRET_LENGTH } from './worker-secrets';

export const REDACTED = '[redacted]';

export interface Redactor {
  /** False when there is nothing to look for: callers may skip the work. */
  readonly active: boolean;
  redact(text: string): string;
}

/**
 * Finds each secret in a text in the forms a command may print it: as is; broken up by
 * whitespace, newlines (numbered lines too), quotes, `+` or `,`; percent-encoded (any case, any
 * mix with literal characters); base64 and base64url at any alignment inside a longer encoded
 * string; hex. Each match, with whatever broke it up, becomes `[redacted]`.
 *
 * How: rather than a pattern with optional separators between every character (backtracking
 * when a secret itself holds a separator), the text is rewritten twice with the noise dropped
 * and a map back to the original (text-view.ts), and every form of every secret is found there
 * with indexOf. That is linear in the text in practice: 30,000 characters and 3 secrets take
 * 0.8 ms once warm, 1.5-5 ms in a cold jest run (test/unit/redact.test.ts measures it).
 */
export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const values = [...new Set([...secrets].map((s) => s?.trim() ?? ''))].filter((s) => s.length >= MIN_SECRET_LENGTH);
  const needles = values.map(secretNeedles);
  const passes: Array<{ options: ViewOptions; needles: string[] }> = [
    // Plain: a secret that itself holds `%41` or starts a line with digits and a colon.
    { options: { decodePercent: false, dropLinePrefixes: false }, needles: unique(needles.flatMap((n) => n.plain)) },
    { options: { decodePercent: true, dropLinePrefixes: true }, needles: unique(needles.flatMap((n) => n.decoded)) },
  ];
  const shortest = Math.min(...passes.flatMap((pass) => pass.needles.map((needle) => needle.length)));
  return {
    active: values.length > 0,
    redact(text: string): string {
      if (values.length === 0 || text.length < shortest) return text;
      const spans: Array<[number, number]> = [];
      // As printed, separators at its ends included (the views drop those).
      for (const value of values) {
        for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) spans.push([at, at + value.length]);
      }
      for (const pass of passes) {
        const view = textView(text, pass.options);
        for (const needle of pass.needles) {
          for (let at = view.text.indexOf(needle); at !== -1; at = view.text.indexOf(needle, at + 1)) {
            spans.push([view.from[at]!, view.to[at + needle.length - 1]!]);
          }
        }
      }
      return spans.length === 0 ? text : replaceSpans(text, spans);
    },
  };
}

function replaceSpans(text: string, spans: Array<[number, number]>): string {
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let cursor = 0;
  for (const [start, stop] of spans) {
    if (start < cursor) {
      cursor = Math.max(cursor, stop); // overlaps the previous match: one redaction for both
      continue;
    }
    out += text.slice(cursor, start) + REDACTED;
    cursor = stop;
  }
  return out + text.slice(cursor);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
