import { questionCard, runPath } from './answer-forms';
import { age, h, page } from './page-html';
import type { InboxItem } from './run-reads';
import { runTitle } from './run-page';
import { clip, visible } from './visible-text';

/** Every open question, oldest first, each answerable where it stands, with its context. */
export function inboxPage(items: InboxItem[], csrf: string, now = Date.now()): string {
  const body = h`<h1>Waiting for you <span class="count">${items.length}</span></h1>
${items.length === 0 ? h`<p class="empty">No run waits for a human.</p>` : ''}
${items.map(
  (item) => h`<section class="item" data-run="${item.workflowId}">
<div class="run"><a href="${runPath(item.workflowId)}">${visible(runTitle(item.prompt, item.workflowId))}</a> · waiting ${age(item.requestedAt, now)}</div>
<div class="meta">run <code>${visible(item.workflowId)}</code></div>
<p class="prompt">${visible(clip(item.prompt, 600))}</p>
${questionCard(item.workflowId, item, csrf, item.context)}
</section>`,
)}`;
  return page({ title: `Waiting for you (${items.length})`, body });
}
