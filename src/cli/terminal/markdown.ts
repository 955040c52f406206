import { stripVTControlCharacters } from 'node:util';

type Marked = import('marked', { with: { 'resolution-mode': 'import' } }).Marked;

let loaded: Promise<{ Marked: new () => Marked; markedTerminal: (options: object) => object }> | undefined;

/** marked and marked-terminal are ES modules; this package is CommonJS. */
function load() {
  loaded ??= Promise.all([import('marked'), import('marked-terminal')]).then(([m, t]) => ({
    Marked: m.Marked as unknown as new () => Marked,
    markedTerminal: t.markedTerminal as (options: object) => object,
  }));
  return loaded;
}

/**
 * The model's answer as the terminal can show it: headings, emphasis, lists, code blocks and
 * tables laid out for `width` columns; without styles when colours are off (NO_COLOR).
 * Text that does not render (or renders to nothing) comes back as it was.
 */
export async function renderMarkdown(text: string, width: number, colors: boolean): Promise<string> {
  try {
    const { Marked, markedTerminal } = await load();
    const marked = new Marked();
    marked.use(markedTerminal({ width, reflowText: true, tab: 2, showSectionPrefix: false }) as never);
    const rendered = (await marked.parse(text)).replace(/\n+$/, '');
    const shown = colors ? rendered : stripVTControlCharacters(rendered);
    return shown.trim() ? shown : text;
  } catch {
    return text;
  }
}
