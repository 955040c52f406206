import { h, raw, type Html } from './page-html';
import { visible } from './visible-text';

type Marked = import('marked', { with: { 'resolution-mode': 'import' } }).Marked;

let marked: Marked | undefined;

/** marked is an ES module and this package CommonJS: loaded once, when the page's server starts. */
export async function loadMarkdown(): Promise<void> {
  if (marked) return;
  const { Marked } = await import('marked');
  const instance = new Marked({ gfm: true, breaks: false, async: false });
  instance.use({
    renderer: {
      // Raw HTML in the answer (a block or an inline tag) is shown as the text it is, never parsed.
      html: (token) => ('block' in token && token.block ? `<pre class="raw">${escapeHtml(token.text)}</pre>` : escapeHtml(token.text)),
      // Images would load from anywhere (the CSP refuses them anyway): shown as their text and address.
      image: ({ href, text }) => `${escapeHtml(text)} (${escapeHtml(href)})`,
      // Only web and mail links; anything else (javascript:, data:, vbscript:) stays text.
      link({ href, tokens }) {
        const label = this.parser.parseInline(tokens);
        if (!/^(https?:|mailto:)/i.test(href)) return `${label} (${escapeHtml(href)})`;
        return `<a href="${escapeHtml(href)}" rel="noreferrer nofollow" target="_blank">${label}</a>`;
      },
    },
  });
  marked = instance;
}

/**
 * The model's final answer as Markdown: headings, lists, emphasis, code and tables. Every hidden
 * character is written out first (the page's one escaping, src/common/visible-text.ts), text and
 * code are escaped by marked, raw HTML is shown as text, links only to http(s) and mail. Before
 * `loadMarkdown` (or if it fails) the answer is plain escaped text.
 */
export function markdownHtml(text: string): Html {
  const source = visible(text);
  if (!marked) return h`<p class="text">${source}</p>`;
  try {
    return raw(marked.parse(source, { async: false })) as Html;
  } catch {
    return h`<p class="text">${source}</p>`;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
