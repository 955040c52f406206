import { ToolError } from './tool-error';
import { MAX_GLOB_ALTERNATIVES, MAX_GLOB_PATTERN_CHARS, MAX_GLOB_RANGE } from './limits';

/**
 * How many patterns brace expansion makes of a glob (`{a,b}{c,d}` → 4, `{1..10}` → 10), and its
 * largest single range, counted without expanding. fast-glob expands every pattern before it
 * walks, so `{a,b}` x 30 would be a billion patterns; the count is what lets glob refuse it first.
 * Pure, linear in the pattern, no recursion (a pattern nested 100 000 deep is fine).
 */
export interface BraceSize {
  alternatives: number;
  largestRange: number;
}

const RANGE = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/;

interface Frame {
  /** Sum over the finished alternatives of this group. */
  sum: number;
  /** Product over the items of the alternative being read. */
  product: number;
  /** A `{...}` without a top-level comma is literal text: its content multiplies, not adds. */
  isGroup: boolean;
}

export function braceSize(pattern: string): BraceSize {
  const { closing, closers } = matchBraces(pattern);
  const stack: Frame[] = [{ sum: 0, product: 1, isGroup: false }];
  let largestRange = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    const top = stack[stack.length - 1] as Frame;
    if (char === '\\') {
      i += 1;
    } else if (char === '{' && closing.has(i)) {
      const end = closing.get(i) as number;
      const range = rangeSize(pattern.slice(i + 1, end));
      if (range !== undefined) {
        largestRange = Math.max(largestRange, range);
        top.product *= range;
        i = end;
      } else {
        stack.push({ sum: 0, product: 1, isGroup: hasTopLevelComma(pattern, i + 1, end, closing) });
      }
    } else if (char === ',' && top.isGroup) {
      top.sum += top.product;
      top.product = 1;
    } else if (char === '}' && stack.length > 1 && closers.has(i)) {
      stack.pop();
      const parent = stack[stack.length - 1] as Frame;
      parent.product *= top.isGroup ? top.sum + top.product : top.product;
    }
  }
  const rootFrame = stack[0] as Frame;
  return { alternatives: rootFrame.product, largestRange };
}

/** fast-glob expands braces synchronously, one pattern per alternative, before its walk starts. */
export function refuseExpensivePattern(pattern: string): void {
  if (pattern.length > MAX_GLOB_PATTERN_CHARS) {
    throw new ToolError(`Pattern is too long (${pattern.length} characters; the limit is ${MAX_GLOB_PATTERN_CHARS})`);
  }
  const { alternatives, largestRange } = braceSize(pattern);
  if (largestRange > MAX_GLOB_RANGE) {
    throw new ToolError(`Pattern has a brace range of ${largestRange} items; the limit is ${MAX_GLOB_RANGE}`);
  }
  if (alternatives > MAX_GLOB_ALTERNATIVES) {
    const count = Number.isFinite(alternatives) ? String(alternatives) : 'too many';
    throw new ToolError(
      `Pattern expands to ${count} alternatives through its braces; the limit is ${MAX_GLOB_ALTERNATIVES}: use fewer {a,b} groups or "*"`,
    );
  }
}

/** Matched pairs `{` index → `}` index, escapes skipped; an unmatched brace is literal text. */
function matchBraces(pattern: string): { closing: Map<number, number>; closers: Set<number> } {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') i += 1;
    else if (char === '{') open.push(i);
    else if (char === '}' && open.length > 0) pairs.set(open.pop() as number, i);
  }
  return { closing: pairs, closers: new Set(pairs.values()) };
}

function hasTopLevelComma(pattern: string, from: number, to: number, pairs: Map<number, number>): boolean {
  for (let i = from; i < to; i++) {
    const char = pattern[i];
    if (char === '\\') i += 1;
    else if (char === '{' && pairs.has(i)) i = pairs.get(i) as number;
    else if (char === ',') return true;
  }
  return false;
}

/** `{1..10}`, `{a..z}`, `{0..100..5}`: how many items; undefined when the text is not a range. */
function rangeSize(body: string): number | undefined {
  const match = RANGE.exec(body);
  if (!match) return undefined;
  const [, from = '', to = '', step] = match;
  const numeric = /\d/.test(from) && /\d/.test(to);
  if (!numeric && (/\d/.test(from) || /\d/.test(to))) return undefined;
  const span = numeric ? Math.abs(Number(to) - Number(from)) : Math.abs(to.charCodeAt(0) - from.charCodeAt(0));
  const stride = Math.abs(Number(step ?? 1)) || 1;
  return Math.floor(span / stride) + 1;
}
