import { LiveDisplay } from './live-display';
import { PlainDisplay } from './plain-display';
import type { RunDisplay } from './run-display';

/** A live display on a terminal that can redraw; plain streaming for pipes, files and `TERM=dumb`. */
export async function openDisplay(out: NodeJS.WriteStream = process.stdout): Promise<RunDisplay> {
  if (out.isTTY === true && process.env.TERM !== 'dumb') return LiveDisplay.open(out);
  return new PlainDisplay((text) => out.write(text));
}
