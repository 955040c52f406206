/**
 * A small model shown a file numbered (`12: text`, as read_file, an attachment or an edit's result
 * shows it) often writes the listing back, numbers, headers and all, as the file's content. Text
 * in which every line carries the next number is such a paste: the numbers (and the listing's own
 * header and footer lines) come off, and the result says so.
 */

import { NUMBERED_AS_READ_FILE } from './edited-region';

/**
 * The lines our own listings put around numbered text (the model rewords them a little). Plain
 * string checks, linear in the line: the content is the model's, and a regular expression with two
 * open-ended parts backtracks on a line built for it.
 */
function isListingFrame(line: string): boolean {
  if (line.endsWith('):') && line.includes(`, ${NUMBERED_AS_READ_FILE} (`)) return true;
  if (line.startsWith('[Attached ') && line.endsWith(')]') && line.includes(' (numbered as read_file shows it, ')) return true;
  if (line.startsWith('[End of ') && line.endsWith(']')) return true;
  return /^\[lines \d+-\d+ of \d+; read on with offset=\d+\]$/.test(line);
}

const NUMBERED = /^(\d+): ?/;

/** A listing pasted into a listing is unwrapped this many layers deep at most. */
const MAX_LAYERS = 3;

/** `text` without read_file's numbering when all of it is a numbered listing; undefined otherwise. */
export function unnumberedPaste(text: string, layers = MAX_LAYERS): string | undefined {
  const trailingNewline = text.endsWith('\n');
  let lines = (trailingNewline ? text.slice(0, -1) : text).split('\n');
  const all = lines.length;
  lines = lines.filter((line) => !isListingFrame(line));
  const framed = all - lines.length;
  // Under our own header, an empty line without a number is one the model added between two numbered
  // lines (the file's own empty lines carry their numbers): it is not part of the file either.
  if (framed > 0) lines = lines.filter((line) => line !== '');
  // Unframed, a short numbered text may be meant as such ("1: apples").
  if (lines.length < (framed > 0 ? 1 : 3)) return undefined;
  let expected = Number(NUMBERED.exec(lines[0]!)?.[1] ?? NaN);
  if (!Number.isSafeInteger(expected)) return undefined;
  const stripped: string[] = [];
  for (const line of lines) {
    const match = NUMBERED.exec(line);
    if (!match || Number(match[1]) !== expected) return undefined;
    stripped.push(line.slice(match[0].length));
    expected++;
  }
  const result = stripped.join('\n') + (trailingNewline ? '\n' : '');
  // A listing pasted into a listing: take the numbers off each layer.
  return (layers > 1 ? unnumberedPaste(result, layers - 1) : undefined) ?? result;
}

export const UNNUMBERED_NOTE = "(the \"12: \" line numbers of a numbered listing were taken off; they are not part of the file)";
