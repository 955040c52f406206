/**
 * After a write or an edit takes top-level names away (a rename, a function removed), or an edit
 * replaces one identifier with another, the lines of the workspace that still use the old names.
 * Renaming a function in its own file, the 1.5B model was told to grep for the old name and change
 * the files that use it; it ran the acceptance check instead, saw `exit code 1` with nothing
 * printed, and wrote the same file again until the run stopped (EVALS.md). Named lines give it the
 * next edit to make.
 *
 * The search is grep's own (`searchFiles`: the safe walk and opens, RE2, its yields), within
 * smaller limits, and only where the run's guard lets a grep of the whole workspace run unasked.
 */
import { cutLine } from './edited-region';
import { searchFiles, type GrepLimits } from './grep';
import { STILL_TO_DO } from '../../loop/next-step';

/** A note, not a search result: a few lines name the work, and a huge tree is not read for it. */
const LIMITS: GrepLimits = { maxMatches: 12, maxBytes: 16 * 1024 * 1024 };
const SHOWN_LINES = 10;

/** Names RE2's `\b` can bound (a `$` is not a word character). */
const WORD_NAME = /^[A-Za-z_]\w*$/;

/** The note naming where `names` are still used under `where` (the workspace, or one file), or undefined when nowhere (or they cannot be searched). */
export async function nameUsersNote(root: string, names: readonly string[], where = '.'): Promise<string | undefined> {
  const searched = names.filter((name) => WORD_NAME.test(name));
  if (searched.length === 0) return undefined;
  const pattern = `\\b(?:${searched.join('|')})\\b`;
  const found = await searchFiles(root, { pattern, path: where, include: '' }, LIMITS).catch(() => undefined);
  if (!found || found.lines.length === 0) return undefined;
  const shown = found.lines.slice(0, SHOWN_LINES).map(cutLine);
  const it = searched.length === 1 ? 'it' : 'them';
  const more = found.lines.length > SHOWN_LINES ? [`…and more: grep for ${it} to see every one.`] : [];
  return [`${STILL_TO_DO} these lines still use ${searched.join(', ')}, which this change took away; change them too, or put ${it} back:`, ...shown, ...more].join('\n');
}
