import { stripVTControlCharacters } from 'node:util';
import { visibleProse } from '../../common/visible-text';

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
export async function renderMarkdown(raw: string, width: number, colors: boolean): Promise<string> {
  // The model's text is escaped first: the only sequences on the screen are the renderer's own styles.
  const text = visibleProse(raw);
  try {
    const { Marked, markedTerminal } = await load();
    const marked = new Marked();
    marked.use(markedTerminal({ width, reflowText: true, tab: 2, showSectionPrefix: false }) as never);
    marked.use({ renderer: { link: shownLink } } as never);
    const rendered = (await marked.parse(text)).replace(/\n+$/, '');
    const shown = colors ? rendered : stripVTControlCharacters(rendered);
    return shown.trim() ? shown : text;
  } catch {
    return text;
  }
}

/**
 * A link as its text and its target, never an OSC 8 hyperlink: in a terminal that supports them,
 * marked-terminal would show a model's `[the docs](https://evil.example/x)` as "the docs" alone,
 * linked to a target the reader never sees.
 */
function shownLink(this: { parser: { parseInline(tokens: unknown[]): string } }, token: { href: string; tokens: unknown[] }): string {
  const text = this.parser.parseInline(token.tokens);
  return text === token.href ? token.href : `${text} (${token.href})`;
}
