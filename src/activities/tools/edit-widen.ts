/**
 * A small model's commonest edit_file slip: old_text is a function's body line (`pass`,
 * `throw new Error('not implemented')`) and new_text is the whole function, header and all, so the
 * plain replacement nests a second definition inside the first (valid code that returns nothing).
 * When new_text starts with the header of the block that encloses old_text, the model meant to
 * replace that block: the match widens up to the header (and down to the block's closing line when
 * new_text ends with it). Anything less certain is applied as written.
 */

export interface WidenedMatch {
  start: number;
  end: number;
  /** 1-based lines of the file the widened match covers, for the result's note. */
  firstLine: number;
  lastLine: number;
}

/** How far above old_text a repeated header is looked for. */
const MAX_HEADER_DISTANCE = 40;

const indentOf = (line: string) => line.length - line.trimStart().length;

/** A header is one line of code, not a paragraph: longer lines are never taken for one. */
const MAX_HEADER_CHARS = 400;

/**
 * A line that opens a block: `def f(x):`, `function f(x) {`, `class A {`, `fn f() -> T {`. Plain
 * string checks, linear in the line (no regular expression to backtrack on a hostile line).
 */
function opensBlock(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed.length > MAX_HEADER_CHARS) return false;
  if (!trimmed.endsWith('{') && !trimmed.endsWith(':')) return false;
  return trimmed.includes('(') || /^(?:class|struct|impl|interface|enum)\s/.test(trimmed);
}

/** Lines of `text` with the offset each starts at. */
function linesWithOffsets(text: string): { line: string; offset: number }[] {
  const out: { line: string; offset: number }[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    out.push({ line, offset });
    offset += line.length + 1;
  }
  return out;
}

function lastIndexWhere<T>(items: T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

export function widenNestedEdit(text: string, at: number, oldText: string, newText: string): WidenedMatch | undefined {
  const newLines = newText.replace(/\n+$/, '').split('\n');
  if (newLines.length < 2 || oldText.endsWith('\n')) return undefined;
  const header = newLines[0]!.trim();
  if (!opensBlock(header)) return undefined;
  const lines = linesWithOffsets(text);
  const end = at + oldText.length;
  const first = lastIndexWhere(lines, (l) => l.offset <= at);
  const last = lastIndexWhere(lines, (l) => l.offset < end);
  // old_text must start at its line's first non-blank character and end at its line's end.
  if (text.slice(lines[first]!.offset, at).trim() !== '') return undefined;
  const lastLine = lines[last]!;
  if (text.slice(end, lastLine.offset + lastLine.line.length).trim() !== '') return undefined;
  if (oldText.trimStart().startsWith(header)) return undefined;

  const bodyIndent = indentOf(lines[first]!.line);
  for (let h = first - 1; h >= Math.max(0, first - MAX_HEADER_DISTANCE); h--) {
    const candidate = lines[h]!.line;
    if (candidate.trim() === '') continue;
    // Every line between the header and old_text belongs to the header's block.
    if (indentOf(candidate) >= bodyIndent && candidate.trim() !== header) continue;
    if (candidate.trim() !== header) return undefined;
    if (indentOf(candidate) >= bodyIndent) return undefined;
    let widenedEnd = lastLine.offset + lastLine.line.length;
    let widenedLast = last;
    const closer = lines[last + 1];
    const newLast = newLines.at(-1)!;
    if (closer && closer.line.trim() !== '' && closer.line.trim() === newLast.trim() && indentOf(closer.line) === indentOf(candidate) && indentOf(newLast) === indentOf(newLines[0]!)) {
      widenedEnd = closer.offset + closer.line.length;
      widenedLast = last + 1;
    }
    // new_text that brings its own indentation replaces the header's line from its start.
    const start = /^\s/.test(newLines[0]!) ? lines[h]!.offset : lines[h]!.offset + indentOf(candidate);
    return { start, end: widenedEnd, firstLine: h + 1, lastLine: widenedLast + 1 };
  }
  return undefined;
}
