/**
 * What a successful edit_file or write_file shows after its one-line result: the file as it is
 * now, around the change, numbered as read_file numbers it (the whole file when small). A model
 * that never sees the file after its edit keeps editing the lines its edit moved or removed.
 */

/** What follows the name of every numbered listing a tool result shows (an edit's, a miss's). */
export const NUMBERED_AS_READ_FILE = 'numbered as read_file numbers them';
export const NUMBERED_LISTING = `${NUMBERED_AS_READ_FILE} (the "12: " prefixes are not part of the file):`;

/** A file this small is shown whole (as an edit miss shows it: about 1,000 tokens at most). */
const WHOLE_FILE_LINES = 80;
const WHOLE_FILE_CHARS = 4_000;
/** Unchanged lines shown on each side of an edit in a larger file. */
const CONTEXT_LINES = 3;
/** At most this many lines of a larger file's changed region; its read_file shows the rest. */
const MAX_REGION_LINES = 40;
const MAX_SHOWN_LINE_CHARS = 200;

/** A shown line cut at 200 characters, marked with an ellipsis. */
export function cutLine(line: string): string {
  return line.length > MAX_SHOWN_LINE_CHARS ? `${line.slice(0, MAX_SHOWN_LINE_CHARS)}…` : line;
}

/**
 * The whole file numbered when small, else the numbered lines of `span` (0-based, inclusive) with a
 * few of context ('' without a span); '' for an empty or binary file. Linear in the file's size,
 * which the tools limit.
 */
export function numberedRegion(filePath: string, text: string, span?: { first: number; last: number }): string {
  if (text.length === 0 || text.includes('\0')) return '';
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  const whole = lines.length <= WHOLE_FILE_LINES && text.length <= WHOLE_FILE_CHARS;
  if (!whole && !span) return '';
  const from = whole || !span ? 0 : Math.max(0, span.first - CONTEXT_LINES);
  const to = whole || !span ? lines.length : Math.min(lines.length, span.last + 1 + CONTEXT_LINES, from + MAX_REGION_LINES);
  const shown = lines.slice(from, to).map((line, i) => `${from + i + 1}: ${cutLine(line)}`).join('\n');
  const which = whole ? `${filePath} now, ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}` : `${filePath} now, lines ${from + 1}-${to} of ${lines.length}`;
  return `${which}, ${NUMBERED_LISTING}\n${shown}`;
}

/** The 1-based line of the character at `offset`, as read_file numbers it (a walk of the newlines before it, no copy). */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The 0-based lines an edit's new text occupies in the edited file. */
export function editedLines(edited: string, at: number, newText: string): { first: number; last: number } {
  const first = lineAt(edited, at) - 1;
  let newLines = 0;
  for (let i = newText.indexOf('\n'); i >= 0; i = newText.indexOf('\n', i + 1)) newLines++;
  return { first, last: first + newLines };
}

/** A tool's one-line result with the numbered region after it, when there is one to show. */
export function withRegion(result: string, region: string): string {
  return region ? `${result}\n${region}` : result;
}
