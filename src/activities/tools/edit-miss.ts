/**
 * Why an edit_file's old_text was not found, written for the model to recover with: the usual
 * causes (read_file's line-number prefixes copied along, whitespace that differs, text guessed
 * without reading the file) and the lines of the file closest to what it sent, numbered as
 * read_file numbers them, so the next call can copy them exactly. A small file is shown whole: a
 * small model that edits without reading gets, in one result, all it needs for a correct edit.
 */

import { NUMBERED_LISTING } from './edited-region';
import { EDIT_MISS_TEXT } from '../../loop/action-failures';

/** Beyond this many comparisons the closest lines are not looked for: a miss must stay cheap on a huge file. */
const MAX_COMPARISONS = 400_000;
/**
 * Nor beyond this many character pairs handled (the file's pairs counted once, then old_text's
 * pairs once per window tried): a long line of old_text against a long file made one miss hold the
 * worker's event loop for most of a minute. About 50 to 150 ms of work on a busy 2-core machine.
 */
const MAX_PAIR_WORK = 1_000_000;
const MAX_WINDOW_LINES = 30;
const CONTEXT_LINES = 2;
const MAX_SHOWN_LINE_CHARS = 200;
/** A file this small is shown whole in the miss (about 1,000 tokens at most). */
const WHOLE_FILE_LINES = 80;
const WHOLE_FILE_CHARS = 4_000;
/** How many of the lines where old_text and the file part are named. */
const MAX_DIFFERING_LINES = 3;

const LINE_PREFIX = /^\s*\d+: /;

export interface MissContext {
  filePath: string;
  /** false when the run has not read (or written) this file: the model guessed its content. */
  read?: boolean;
}

export function describeMiss(text: string, oldText: string, context: MissContext): string {
  const lines = text.split('\n');
  const wanted = oldText.split('\n');
  const whole = lines.length <= WHOLE_FILE_LINES && text.length <= WHOLE_FILE_CHARS && text.length > 0;
  const parts = [`${EDIT_MISS_TEXT} ${context.filePath}.`];
  if (context.read === false) {
    parts.push(
      whole
        ? `You had not read ${context.filePath} in this run: it is shown below. Copy old_text from it exactly.`
        : `You have not read ${context.filePath} in this run: call read_file on it first and copy old_text from its output.`,
    );
  }
  const prefixed = wanted.filter((line) => line.trim() !== '');
  if (prefixed.length > 0 && prefixed.every((line) => LINE_PREFIX.test(line))) {
    const stripped = wanted.map((line) => line.replace(LINE_PREFIX, '')).join('\n');
    parts.push(
      text.includes(stripped)
        ? 'old_text has read_file\'s line-number prefixes ("12: "): they are not part of the file. Send the same text without them.'
        : 'old_text has read_file\'s line-number prefixes ("12: "): they are not part of the file. Leave them out.',
    );
  }
  const squeezed = (value: string) => value.replace(/\s+/g, ' ').trim();
  const near = closestLines(lines, wanted);
  const numbered = (from: number, to: number) => lines.slice(from, to).map((line, i) => `${from + i + 1}: ${cut(line)}`).join('\n');
  if (near) {
    const sameButSpace = squeezed(lines.slice(near.start, near.end).join('\n')) === squeezed(wanted.join('\n'));
    const range = `${near.start + 1}-${near.end}`;
    if (whole) parts.push(sameButSpace ? `Lines ${range} match it except for whitespace (indentation, line ends); copy them exactly.` : `The closest lines are ${range}.`);
    else {
      parts.push(sameButSpace ? `Lines ${range} match it except for whitespace (indentation, line ends); copy them exactly:` : `The closest lines (${range}):`);
      parts.push(numbered(Math.max(0, near.start - CONTEXT_LINES), Math.min(lines.length, near.end + CONTEXT_LINES)));
    }
    if (!sameButSpace) parts.push(...differingLines(lines, near.start, wanted));
  } else if (lines.length > 0 && !whole) {
    parts.push(`The file has ${lines.length} lines; read it with read_file to see what it holds.`);
  }
  if (whole) parts.push(`${context.filePath}, ${lines.length} lines, ${NUMBERED_LISTING}\n${numbered(0, lines.length)}`);
  return parts.join('\n');
}

/** Where old_text and the closest lines part, line by line (a dropped `;`, a changed word): a small model copies a line it is shown. */
function differingLines(lines: string[], start: number, wanted: string[]): string[] {
  const said: string[] = [];
  for (let i = 0; i < wanted.length && start + i < lines.length && said.length < MAX_DIFFERING_LINES; i++) {
    const sent = (wanted[i] as string).replace(LINE_PREFIX, '');
    const actual = lines[start + i] as string;
    if (sent !== actual) said.push(`Line ${start + i + 1} of the file is ${JSON.stringify(cut(actual))} where old_text has ${JSON.stringify(cut(sent))}.`);
  }
  return said;
}

function cut(line: string): string {
  return line.length > MAX_SHOWN_LINE_CHARS ? `${line.slice(0, MAX_SHOWN_LINE_CHARS)}…` : line;
}

/** The window of the file's lines most like old_text's lines, compared line by line on their character pairs. */
function closestLines(lines: string[], wanted: string[]): { start: number; end: number } | undefined {
  const probe = wanted.slice(0, MAX_WINDOW_LINES).map((line) => line.replace(LINE_PREFIX, ''));
  const size = Math.min(probe.length, lines.length);
  if (size === 0 || lines.length * size > MAX_COMPARISONS) return undefined;
  const probeChars = probe.slice(0, size).reduce((sum, line) => sum + line.length, 0);
  const fileChars = lines.reduce((sum, line) => sum + line.length, 0);
  if (fileChars + (lines.length - size + 1) * probeChars > MAX_PAIR_WORK) return undefined;
  const probeGrams = probe.map(counted);
  const lineGrams = lines.map(counted);
  let best = { start: -1, score: 0 };
  for (let start = 0; start + size <= lines.length; start++) {
    let score = 0;
    for (let i = 0; i < size; i++) score += dice(probeGrams[i]!, lineGrams[start + i]!);
    if (score > best.score) best = { start, score };
  }
  // Nothing alike at all (under a fifth of the pairs shared): showing random lines would mislead.
  if (best.start < 0 || best.score / size < 0.2) return undefined;
  return { start: best.start, end: best.start + size };
}

function pairs(line: string): Map<string, number> {
  const text = line.trim().replace(/\s+/g, ' ');
  const grams = new Map<string, number>();
  for (let i = 0; i + 1 < text.length; i++) {
    const gram = text.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  if (text.length === 1) grams.set(text, 1);
  return grams;
}

interface Grams {
  grams: Map<string, number>;
  /** The pairs counted with repeats, summed once here rather than at each comparison. */
  total: number;
}

function counted(line: string): Grams {
  const grams = pairs(line);
  let total = 0;
  for (const n of grams.values()) total += n;
  return { grams, total };
}

/** Sørensen-Dice on character pairs: 1 for the same line, 0 for lines with no pair in common. Costs one lookup per distinct pair of `a`. */
function dice(a: Grams, b: Grams): number {
  const total = a.total + b.total;
  if (total === 0) return a.grams.size === 0 && b.grams.size === 0 ? 1 : 0;
  let shared = 0;
  for (const [gram, n] of a.grams) shared += Math.min(n, b.grams.get(gram) ?? 0);
  return (2 * shared) / total;
}
