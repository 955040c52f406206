/**
 * The files a message mentions: `@path` and `@dir/`, the coding agents' convention, and
 * with `plain` also paths written without `@` (a token with a `/` or a file extension). Pure text
 * work, done in the workflow: which of them exist, and what they hold, the worker finds out.
 */
import type { Mention } from '../common/attachments';

export type MentionMode = 'at' | 'plain' | 'off';

/** How many candidates one message may send to the worker: a paste of a long log is not a file list. */
export const MAX_MENTION_CANDIDATES = 32;
const MAX_PATH_CHARS = 1024;

// A mention starts a token: at the start, after whitespace or an opening bracket or quote.
const AT_MENTION = /(?<=^|[\s(\[{"'`<])@([^\s"'`()<>[\]{},;]+)/g;
const PLAIN_PATH = /(?<=^|[\s(\[{"'`<])([A-Za-z0-9_.~-][^\s"'`()<>[\]{},;:*?|]*)/g;
const TRAILING = /[.,:;!?]+$/;
const HAS_EXTENSION = /\.[A-Za-z][A-Za-z0-9]{0,9}$/;

export function findMentions(text: string, mode: MentionMode): Mention[] {
  if (mode === 'off') return [];
  const found = new Map<string, Mention>();
  const add = (raw: string, explicit: boolean) => {
    // `@src/` keeps its slash (a directory); `file.ts.` and `(see a.ts)` lose their punctuation.
    const path = raw.replace(TRAILING, '');
    if (!path || path.length > MAX_PATH_CHARS || path.includes('://') || found.has(path) || found.size >= MAX_MENTION_CANDIDATES) return;
    found.set(path, { path, explicit });
  };
  for (const match of text.matchAll(AT_MENTION)) add(match[1] ?? '', true);
  if (mode === 'plain') {
    for (const match of text.matchAll(PLAIN_PATH)) {
      const token = (match[1] ?? '').replace(TRAILING, '');
      // A path looks like one: it has a directory part or an extension; a version (`2.5`) has neither letter-led.
      if (token.includes('/') ? /[A-Za-z]/.test(token) : HAS_EXTENSION.test(token)) add(token, false);
    }
  }
  return [...found.values()];
}
