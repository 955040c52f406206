import { runUiLink } from '../connection/config';
import type { StepRecord } from '../common/wire';
import { cancelForm, forkForm, messageForm, questionCard, runPath } from './answer-forms';
import { blockHtml } from './conversation-html';
import { foldEvents } from './conversation';
import { costChart } from './cost-chart';
import { h, page, type Html } from './page-html';
import type { RunView } from './run-reads';
import { visible } from './visible-text';

export interface RunPageContext {
  csrf: string;
  namespace: string;
  temporalUiPort: number;
}

/**
 * One run: what it was asked, what waits for an answer, the conversation (folded from the
 * run's events, then live from the next offset), its steps with a cost chart, and what a
 * human can do to it.
 */
export function runPage(run: RunView, context: RunPageContext): string {
  const { status } = run;
  const open = run.execution === 'RUNNING';
  const id = run.workflowId;
  const summary = status
    ? h`<p class="facts">${run.execution.toLowerCase()} · phase ${status.phase} · iteration ${status.iteration}/${status.maxIterations} · ${status.usage.inputTokens.toLocaleString('en')} tokens in / ${status.usage.outputTokens.toLocaleString('en')} out${status.model ? h` · ${visible(status.model)}` : ''}</p>
<p class="facts">${visible(status.budgetLeft)}</p>${status.sessionRules?.length ? h`<p class="facts">allowed for the rest of this run: ${visible(status.sessionRules.join(', '))}</p>` : ''}`
    : h`<p class="facts">${run.execution.toLowerCase()}</p>`;
  const pending = (status?.pendingPermissions ?? []).map((p) =>
    questionCard(id, { ...p, ...(p.workflowId && p.workflowId !== id ? { answerIn: p.workflowId } : {}) }, context.csrf),
  );
  const body = h`<h1>${visible(id)}</h1>
${summary}
<p class="links"><a href="${runUiLink(context.temporalUiPort, context.namespace, id)}" rel="noreferrer">Temporal Web UI</a> · <a href="/">Inbox</a></p>
${run.problems.map((p) => h`<p class="problem">${visible(p)}</p>`)}
<h2>Prompt</h2><p class="prompt">${visible(run.prompt)}</p>
<div id="pending">${pending.length ? h`<h2>Waiting for you</h2>` : ''}${pending}</div>
<h2>Conversation</h2>
<div id="log" data-events="${runPath(id)}/events?after=${run.nextOffset - 1}" data-open="${open ? 'yes' : 'no'}">${foldEvents(run.events.map((e) => e.event)).map(blockHtml)}</div>
<p id="live" class="facts">${open ? 'live' : 'the run has ended'}</p>
${open ? h`<h2>Answer</h2>${messageForm(id, context.csrf)}${cancelForm(id, context.csrf)}` : ''}
${forkForm(id, run.steps.map((s) => s.step_id), context.csrf)}
<h2>Steps</h2>${costChart(run.steps)}${stepsTable(id, run.steps)}`;
  return page({ title: id, body, scripts: ['run.js'] });
}

function stepsTable(id: string, steps: StepRecord[]): Html {
  if (steps.length === 0) return h`<p class="empty">No step recorded yet.</p>`;
  return h`<div class="scroll"><table class="steps"><thead><tr><th>step</th><th>reason</th><th>tools</th><th>tokens</th><th>cost</th><th>evidence</th><th>diff</th></tr></thead><tbody>
${steps.map((s) => {
  const used = s.budget_after.used;
  // Steps of runs that keep checkpoints carry one: then `bareagent diff` shows what the step changed.
  const checkpoint = (s as StepRecord & { checkpoint?: unknown }).checkpoint;
  return h`<tr><td>${s.step_id}</td><td>${visible(s.reason)}${s.detail ? h`<div class="detail">${visible(s.detail)}</div>` : ''}</td><td>${visible(s.tools.join(', '))}</td><td>${(used.inputTokens + used.outputTokens).toLocaleString('en')}</td><td>$${used.costUsd.toFixed(4)}</td><td>${s.evidence_delta}</td><td>${checkpoint === undefined ? '' : h`<code>bareagent diff ${visible(id)} --step ${s.step_id}</code>`}</td></tr>`;
})}</tbody></table></div>`;
}
