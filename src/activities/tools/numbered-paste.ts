/**
 * A small model shown a file numbered (`12: text`, as read_file, an attachment or an edit's result
 * shows it) often writes the listing back, numbers, headers and all, as the file's content. Text
 * in which every line carries the next number is such a paste: the numbers (and the listing's own
 * header and footer lines) come off, and the result says so.
 */

/** The lines our own listings put around numbered text. */
const LISTING_FRAME = [
  /^\S.* now, (?:\d+ lines?|lines \d+-\d+ of \d+), numbered as read_file numbers them \(.*\):$/,
  /^\[Attached .* \(numbered as read_file shows it, .*\)\]$/,
  /^\[End of .*\]$/,
  /^\[lines \d+-\d+ of \d+; read on with offset=\d+\]$/,
];

const NUMBERED = /^(\d+): ?/;

/** `text` without read_file's numbering when all of it is a numbered listing; undefined otherwise. */
export function unnumberedPaste(text: string): string | undefined {
  const trailingNewline = text.endsWith('\n');
  let lines = (trailingNewline ? text.slice(0, -1) : text).split('\n');
  const framed = lines.filter((line) => LISTING_FRAME.some((frame) => frame.test(line))).length;
  lines = lines.filter((line) => !LISTING_FRAME.some((frame) => frame.test(line)));
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
  return unnumberedPaste(result) ?? result;
}

export const UNNUMBERED_NOTE = "(the \"12: \" line numbers of a numbered listing were taken off; they are not part of the file)";
