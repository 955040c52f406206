import type { ParseEntry } from 'shell-quote';

type ShellQuote = typeof import('shell-quote');

/**
 * shell-quote draws a random marker from `Math.random` when its module loads. In a workflow,
 * `Math.random` is the run's seeded stream, and the module loads once per worker, inside
 * whichever run first parses a command: that run's stream would shift, and a replay of it on
 * another worker would not. So the module loads lazily, through a loader the workflow replaces
 * with one that draws from a stream of its own (src/workflows/shell-quote-loader.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
let loader: () => ShellQuote = () => require('shell-quote') as ShellQuote;
let shellQuote: ShellQuote | undefined;

export function setShellQuoteLoader(load: () => ShellQuote): void {
  loader = load;
}

/** shell-quote's `parse`, loaded on first use. */
export function tokenize(command: string, env: (key: string) => string): Array<ParseEntry | string> {
  shellQuote ??= loader();
  return shellQuote.parse(command, env);
}
