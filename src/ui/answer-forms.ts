import { toolSummary } from '../common/tool-schemas';
import { HIDDEN_WARNING, hasHiddenCharacters, inputHasHiddenCharacters } from '../common/visible-text';
import { inputDigest } from '../loop/input-digest';
import { sessionRuleFor } from '../loop/session-rules';
import { CSRF_FIELD } from './access';
import { slug } from './conversation';
import { age, h, type Html } from './page-html';
import { diffHtml, saidHtml, whereHtml, type QuestionContext } from './run-context-html';
import { visible, visibleJson } from './visible-text';

export interface Question {
  requestId: string;
  tool: string;
  input: unknown;
  deadline?: string;
  requestedAt?: string;
  /** A subagent's question: answered in that workflow. */
  answerIn?: string;
}

function until(deadline: string, now = Date.now()): string {
  const ms = Date.parse(deadline) - now;
  return ms > 0 ? `in ${age(new Date(now - ms).toISOString(), now)}` : 'now';
}

const csrfField = (csrf: string) => h`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">`;
export const runPath = (workflowId: string) => `/runs/${encodeURIComponent(workflowId)}`;

const SUMMARY_CHARS = 200;

/**
 * A question with its answers, one click each: approve, allow for the rest of the run, deny
 * (with an optional reason). The tool input is shown whole, escaped, its hidden characters written
 * out, in a box that grows with it (no scroll box can hide a tail); a summary that does not hold
 * the whole argument says so. The answer carries the digest of the input shown, so it cannot
 * approve another question. With its context: the agent's last words before it, where the run
 * runs, and what it changed in the workspace so far (folded).
 */
export function questionCard(runId: string, question: Question, csrf: string, context?: QuestionContext): Html {
  const rule = sessionRuleFor(question.tool, question.input);
  const summary = toolSummary(question.tool, question.input, SUMMARY_CHARS);
  const whole = toolSummary(question.tool, question.input, Number.MAX_SAFE_INTEGER);
  const hidden = inputHasHiddenCharacters(question.input) || hasHiddenCharacters(question.tool);
  const inputText = visibleJson(question.input);
  const when = [question.requestedAt ? `asked ${age(question.requestedAt)} ago` : '', question.deadline ? `denied unanswered ${until(question.deadline)} (${question.deadline})` : ''].filter(Boolean).join(' · ');
  return h`<div class="card" id="p-${slug(question.requestId)}">
${context ? saidHtml(context.said) : ''}
<div class="question">Allow <code>${visible(summary)}</code>?</div>
${hidden ? h`<div class="warning">${HIDDEN_WARNING}</div>` : ''}
${summary !== whole ? h`<div class="warning">⚠ the line above is cut: the input is ${inputText.length} characters, all of them below</div>` : ''}
<pre class="input">${inputText}</pre>
<div class="meta">${when}${question.answerIn ? h` · asked by subagent ${question.answerIn}` : ''} · request ${visible(question.requestId)}</div>
${context?.facts ? whereHtml(context.facts) : ''}
${context ? diffHtml(context.diff, context.workflowId, 'since the run started') : ''}
<form method="post" action="${runPath(runId)}/answer" class="answer">${csrfField(csrf)}
<input type="hidden" name="requestId" value="${question.requestId}">
<input type="hidden" name="inputDigest" value="${inputDigest(question.tool, question.input)}">
<button name="decision" value="allow" class="allow">Approve</button>
${rule ? h`<button name="decision" value="allow_always" class="always" title="also allow ${visible(rule)} for the rest of the run">Allow ${visible(rule)} for this run</button>` : ''}
<input name="reason" placeholder="reason (optional)" maxlength="500" aria-label="reason">
<button name="decision" value="deny" class="deny">Deny</button>
</form></div>`;
}

export function messageForm(runId: string, csrf: string): Html {
  return h`<form method="post" action="${runPath(runId)}/message" class="wide">${csrfField(csrf)}
<textarea name="text" rows="2" maxlength="20000" placeholder="a follow-up for the agent, taken at its next safe boundary" aria-label="follow-up" required></textarea>
<button>Send follow-up</button></form>`;
}

export function cancelForm(runId: string, csrf: string): Html {
  return h`<form method="post" action="${runPath(runId)}/cancel">${csrfField(csrf)}<button class="deny">Cancel the run</button></form>`;
}

export function forkForm(runId: string, steps: number[], csrf: string): Html {
  if (steps.length === 0) return h``;
  return h`<form method="post" action="${runPath(runId)}/fork" class="wide">${csrfField(csrf)}
<label>Fork from step <select name="step">${steps.map((s, i) => h`<option value="${s}"${i === steps.length - 1 ? h` selected` : ''}>${s}</option>`)}</select></label>
<input name="prompt" placeholder="the new run's next message" maxlength="20000" aria-label="fork prompt" required>
<button>Fork</button></form>`;
}
