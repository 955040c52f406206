import { visibleText } from '../common/visible-text';

const SHOWN = 10;

/** What the checkpoints left out, for `rewind` and `diff`: a heading and one escaped line each. */
export function leftOutLines(leftOut: readonly string[] | undefined, heading: string): string[] {
  if (!leftOut || leftOut.length === 0) return [];
  const lines = leftOut.slice(0, SHOWN).map((item) => `  ${visibleText(item)}`);
  if (leftOut.length > SHOWN) lines.push(`  ... and ${leftOut.length - SHOWN} more`);
  return [`Not in the checkpoints (${heading}):`, ...lines];
}
