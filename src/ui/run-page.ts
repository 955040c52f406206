import { runUiLink } from '../connection/config';
import type { StepRecord } from '../common/wire';
import { firstLine } from '../runs/run-labels';
import { cancelForm, forkForm, messageForm, questionCard, runPath } from './answer-forms';
import { blockHtml } from './conversation-html';
import { foldEvents, textsBeforeQuestions } from './conversation';
import { costChart } from './cost-chart';
import { h, page, type Html } from './page-html';
import { costLabel, diffHtml, whereHtml } from './run-context-html';
import type { RunView } from './run-reads';
import { visible } from './visible-text';

export interface RunPageContext {
  csrf: string;
  namespace: string;
  temporalUiPort: number;
  /** What the answer just sent did (the page an answer leads to): shown first, as a status. */
  notice?: { tone: 'done' | 'refused' | 'failed'; message: string };
}

/** A run's title: its prompt's first line, shortened (the generated id says nothing); the id when it has none. */
export function runTitle(prompt: string, workflowId: string, max = 100): string {
  return firstLine(prompt, max) || workflowId;
}

/**
 * One run: what it was asked, where it runs, what waits for an answer (each question with the
 * agent's words before it and the changes so far), the conversation (folded from the run's
 * events, then live from the next offset), its steps with their own changes and a cost chart,
 * and what a human can do to it.
 */
export function runPage(run: RunView, context: RunPageContext): string {
  const { status } = run;
  const open = run.execution === 'RUNNING';
  const id = run.workflowId;
  const model = run.facts.model;
  const cost = status ? costLabel(status.costUsd ?? run.steps.at(-1)?.budget_after.used.costUsd ?? 0, status.unpricedCalls, model, run.start.prices) : undefined;
  const summary = status
    ? h`<p class="facts">${run.execution.toLowerCase()} · phase ${status.phase} · iteration ${status.iteration}/${status.maxIterations} · ${status.usage.inputTokens.toLocaleString('en')} tokens in / ${status.usage.outputTokens.toLocaleString('en')} out · cost <span class="cost">${visible(cost ?? '')}</span></p>
<p class="facts">${visible(status.budgetLeft)}</p>${status.sessionRules?.length ? h`<p class="facts">allowed for the rest of this run: ${visible(status.sessionRules.join(', '))}</p>` : ''}`
    : h`<p class="facts">${run.execution.toLowerCase()}</p>`;
  const said = textsBeforeQuestions(run.events.map((e) => e.event));
  const pending = (status?.pendingPermissions ?? []).map((p) => {
    const before = said.before(p.requestId);
    return questionCard(id, { ...p, ...(p.workflowId && p.workflowId !== id ? { answerIn: p.workflowId } : {}) }, context.csrf, { workflowId: id, diff: run.diff, ...(before ? { said: before } : {}) });
  });
  const notice = context.notice ? h`<p class="outcome ${context.notice.tone}" role="status">${visible(context.notice.message)}</p>` : '';
  const unpriced = cost !== undefined && cost.startsWith('unpriced');
  const body = h`${notice}<h1>${visible(runTitle(run.prompt, id))}</h1>
<p class="meta">run <code>${visible(id)}</code></p>
${summary}
${whereHtml(run.facts)}
<p class="links"><a href="${runUiLink(context.temporalUiPort, context.namespace, id)}" rel="noreferrer">Temporal Web UI</a> · <a href="/">Inbox</a></p>
${run.problems.map((p) => h`<p class="problem">${visible(p)}</p>`)}
<h2>Prompt</h2><p class="prompt">${visible(run.prompt)}</p>
<div id="pending">${pending.length ? h`<h2>Waiting for you</h2>` : ''}${pending}</div>
<h2>Changes</h2>${diffHtml(run.diff, id, 'since the run started')}
<h2>Conversation</h2>
<div id="log" data-events="${runPath(id)}/events?after=${run.nextOffset - 1}" data-page="${runPath(id)}" data-open="${open ? 'yes' : 'no'}">${foldEvents(run.events.map((e) => e.event)).map(blockHtml)}</div>
<p id="live" class="facts">${open ? 'live' : 'the run has ended'}</p>
${open ? h`<h2>Answer</h2>${messageForm(id, context.csrf)}${cancelForm(id, context.csrf)}` : ''}
${forkForm(id, run.steps.map((s) => s.step_id), context.csrf)}
<h2>Steps</h2>${costChart(run.steps, unpriced)}${stepsTable(run, unpriced)}`;
  return page({ title: runTitle(run.prompt, id, 60), body, scripts: ['run.js'] });
}

function stepsTable(run: RunView, unpriced: boolean): Html {
  const { steps } = run;
  if (steps.length === 0) return h`<p class="empty">No step recorded yet.</p>`;
  return h`<div class="scroll"><table class="steps"><thead><tr><th>step</th><th>reason</th><th>tools</th><th>tokens</th><th>cost</th><th>evidence</th><th>changes</th></tr></thead><tbody>
${steps.map((s) => {
  const used = s.budget_after.used;
  const cost = unpriced && used.costUsd === 0 ? 'unpriced' : `$${used.costUsd.toFixed(4)}`;
  return h`<tr><td>${s.step_id}</td><td>${visible(s.reason)}${s.detail ? h`<div class="detail">${visible(s.detail)}</div>` : ''}</td><td>${visible(s.tools.join(', '))}</td><td>${(used.inputTokens + used.outputTokens).toLocaleString('en')}</td><td>${cost}</td><td>${s.evidence_delta}</td><td>${stepChangesCell(run, s)}</td></tr>`;
})}</tbody></table></div>`;
}

/** A step's own changes, folded; older steps than the page reads name the command that shows them. */
function stepChangesCell(run: RunView, step: StepRecord): Html {
  const checkpoint = step.checkpoint;
  if (checkpoint === undefined) return h``;
  if ('error' in checkpoint) return h`<span class="detail">no checkpoint: ${visible(checkpoint.error)}</span>`;
  if (checkpoint.changed === 0) return h`<span class="detail">none</span>`;
  const diff = run.stepDiffs.get(step.step_id);
  if (diff) return diffHtml(diff, run.workflowId, `in step ${step.step_id}`);
  return h`<code>bareagent diff ${visible(run.workflowId)} --step ${step.step_id}</code>`;
}
