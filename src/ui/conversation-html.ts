import { toolSummary } from '../common/tool-schemas';
import { keyOf, type Block, type Change, type Decided, type ToolResultView } from './conversation';
import { markdownHtml } from './markdown-html';
import { h, type Html } from './page-html';
import { clip, visible, visibleJson } from './visible-text';

/** Past this, a tool result or input is folded away behind its first line. */
const LONG_CHARS = 240;
const LONG_LINES = 4;

export function blockHtml(block: Block): Html {
  const id = keyOf(block);
  switch (block.kind) {
    case 'step':
      return h`<h3 class="step">Step ${block.step}</h3>`;
    case 'text':
      return h`<p class="text" id="${id}">${visible(block.text)}</p>`;
    case 'tool':
      return h`<div class="tool" id="${id}"><div class="call">${visible(toolSummary(block.name, block.input, 160))}</div>${block.input === undefined ? '' : folded('input', visibleJson(block.input))}<div class="result">${block.result ? resultHtml(block.result) : ''}</div></div>`;
    case 'asked':
      return h`<div class="asked" id="${id}">asked: <code>${visible(toolSummary(block.tool, block.input, 160))}</code> ${block.decided ? decidedHtml(block.decided) : h`<span class="open">waiting</span>`}</div>`;
    case 'note':
      return h`<p class="note ${block.tone}">${visible(block.text)}</p>`;
    case 'final':
      return h`<div class="final"><p class="note final">Finished (${visible(block.stopReason)}).</p><div class="answer">${markdownHtml(block.text)}</div></div>`;
  }
}

export function resultHtml(result: ToolResultView): Html {
  return folded(result.isError ? 'error' : 'result', visible(result.preview), result.isError ? 'err' : 'ok');
}

export function decidedHtml(decided: Decided): Html {
  const rule = decided.rule ? h` · ${visible(decided.rule)} allowed for the rest of the run` : '';
  return h`<span class="decided ${decided.decision}">${decided.decision === 'allow' ? 'allowed' : 'denied'}: ${visible(clip(decided.reason, 300))}${rule}</span>`;
}

/** Short text in full; long text behind a <details> whose summary is its first line. */
function folded(label: string, text: string, tone = ''): Html {
  const long = text.length > LONG_CHARS || text.split('\n').length > LONG_LINES;
  if (!long) return h`<pre class="${tone}">${text}</pre>`;
  const first = clip(text.split('\n')[0] ?? '', 100);
  return h`<details class="${tone}"><summary>${label} (${text.length} chars): ${first}</summary><pre>${text}</pre></details>`;
}

/** One frame of the live stream: HTML the page appends to `into` when it has that element, else `block` to the log. */
export interface Frame {
  into?: string;
  html?: string;
  block: string;
  /** Replace the `into` element instead of appending to it. */
  replace?: true;
  /** A question was decided: the page drops its answer card. */
  closes?: string;
  /** A question opened: the page adds its answer card to the waiting panel. */
  card?: string;
  /** The run's answer, as its streamed text shows: the page removes that text when it is the log's last (the answer block shows it rendered). */
  answer?: string;
}

export function frameFor(change: Change, card?: (asked: Extract<Block, { kind: 'asked' }>) => string | undefined): Frame {
  if ('add' in change) {
    const frame: Frame = { block: blockHtml(change.add).toString() };
    if (change.add.kind === 'asked' && card) {
      const html = card(change.add);
      if (html) frame.card = html;
    }
    return frame;
  }
  const block = blockHtml(change.orAdd).toString();
  if ('text' in change) return { into: change.into, html: h`${visible(change.text)}`.toString(), block };
  if ('result' in change) return { into: `${change.into} .result`, html: resultHtml(change.result).toString(), block };
  return { into: `${change.into} .open`, html: decidedHtml(change.decided).toString(), replace: true, block, closes: change.into.replace(/^q-/, 'p-') };
}
