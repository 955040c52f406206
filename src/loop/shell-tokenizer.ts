import type { ParseEntry } from 'shell-quote';

/**
 * shell-quote draws a random marker from `Math.random` when its module loads. In a workflow,
 * `Math.random` is the run's seeded stream: drawing from it at load time would shift that stream
 * by whichever run happened to load the module first on a worker, and a replay elsewhere would
 * see other numbers. The marker only has to be absent from the commands it reads, so it is fixed
 * here, and a command that contains it is refused as unparseable.
 */
const FIXED_DRAW = 0.7071067811865476;
/* eslint-disable no-restricted-properties -- the one place that must touch Math.random: to keep it out of reach */
const seeded = Math.random;
Math.random = () => FIXED_DRAW;
// A require, not an import: imports are hoisted above the line that fixes Math.random.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const shellQuote = require('shell-quote') as typeof import('shell-quote');
Math.random = seeded;
/* eslint-enable no-restricted-properties */

const MARKER = Array.from({ length: 4 }, () => (0x100000000 * FIXED_DRAW).toString(16)).join('');

/** shell-quote's `parse`, or undefined for a command that carries its internal marker. */
export function tokenize(command: string, env: (key: string) => string): Array<ParseEntry | string> | undefined {
  if (command.includes(MARKER)) return undefined;
  return shellQuote.parse(command, env);
}
