import type { SandboxStatus } from '../common/wire';
import { formatUsd, priceOf, type ModelPrice } from '../loop/budget';
import { h, type Html } from './page-html';
import type { DiffView } from './run-diff';
import { clip, visible } from './visible-text';

/** Where a run runs, as a question needs it: its workspace, how its commands are confined, its model. */
export interface RunFacts {
  workspace?: string;
  model?: string | null;
  provider?: string | null;
  permissionMode?: string;
  sandbox?: SandboxStatus;
}

/** What the page knows around one question: the agent's words before it, where it runs, what changed so far. */
export interface QuestionContext {
  said?: string;
  facts?: RunFacts;
  diff?: DiffView;
  /** The run's page: where `bareagent diff` is named for the whole diff. */
  workflowId: string;
}

const SAID_CHARS = 2_000;

export function whereHtml(facts: RunFacts): Html {
  const parts: Html[] = [];
  if (facts.workspace) parts.push(h`workspace <code>${visible(facts.workspace)}</code>`);
  if (facts.sandbox) {
    const { sandbox } = facts;
    const kind = sandbox.enforcement === 'off' ? h`<span class="warning">sandbox off: commands run unconfined</span>` : h`sandbox ${visible(sandbox.enforcement)}`;
    parts.push(h`${kind} · network ${visible(sandbox.network)} · workspace ${sandbox.workspace}`);
  }
  parts.push(h`model ${facts.model ? h`<code>${visible(facts.model)}</code>` : "the worker's default"}`);
  if (facts.provider) parts.push(h`provider ${visible(facts.provider)}`);
  if (facts.permissionMode) parts.push(h`mode ${visible(facts.permissionMode)}`);
  return h`<p class="facts where">${parts.map((part, i) => h`${i ? ' · ' : ''}${part}`)}</p>`;
}

/**
 * The run's cost: dollars by its prices, and "unpriced" where its model has none (its calls then
 * cost nothing here, which is not the same as free). From the status when its worker counts
 * unpriced calls, else from the price list.
 */
export function costLabel(costUsd: number, unpricedCalls: number | undefined, model: string | null | undefined, prices?: Record<string, ModelPrice>): string {
  const unpriced = unpricedCalls !== undefined ? unpricedCalls > 0 : priceOf(model ?? undefined, prices) === undefined;
  if (!unpriced) return formatUsd(costUsd);
  const name = model ? `${model} has no price` : 'the model has no price';
  if (costUsd > 0) return `${formatUsd(costUsd)} + ${unpricedCalls ?? 'some'} unpriced call${unpricedCalls === 1 ? '' : 's'}`;
  return `unpriced (${name}: set "prices" in the run's input)`;
}

export function saidHtml(said: string | undefined): Html {
  if (!said?.trim()) return h``;
  return h`<blockquote class="said"><div class="label">the agent, before asking:</div><p class="text">${visible(clip(said.trim(), SAID_CHARS))}</p></blockquote>`;
}

/** Files and lines of a diff, one line: `2 files changed: a.txt (+3 −1), b.txt (new)`. */
function filesLine(diff: Extract<DiffView, { kind: 'diff' }>): string {
  const shown = diff.files.slice(0, 8).map((f) => {
    const lines = f.added === null ? 'binary' : `+${f.added} −${f.removed}`;
    const what = f.status.startsWith('A') ? `new, ${lines}` : f.status.startsWith('D') ? 'removed' : lines;
    return `${f.path} (${what})`;
  });
  const more = diff.files.length > shown.length ? `, and ${diff.files.length - shown.length} more` : '';
  return `${diff.files.length} file${diff.files.length === 1 ? '' : 's'} changed: ${shown.join(', ')}${more}`;
}

/**
 * A diff inline, folded: its summary line names the files, the unified diff is inside (every
 * name and line escaped and its hidden characters written out, added and removed lines marked).
 */
export function diffHtml(diff: DiffView | undefined, workflowId: string, since: string): Html {
  if (!diff) return h``;
  if (diff.kind === 'none') return h`<p class="facts diff-none">Changes ${since}: not shown, ${visible(diff.why)}.</p>`;
  if (diff.files.length === 0) return h`<p class="facts diff-none">No file changed ${since}.</p>`;
  const lines = diff.text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const cut = diff.totalChars > diff.text.length;
  const range = diff.fromStep === 0 ? `--step ${diff.toStep}` : `--from ${diff.fromStep} --step ${diff.toStep}`;
  return h`<details class="diff"><summary>Changes ${since}: ${visible(filesLine(diff))}</summary><pre class="diff">${lines.map((line) => h`<span class="${lineClass(line)}">${visible(line)}</span>\n`)}</pre>${
    cut ? h`<p class="warning">the diff is ${diff.totalChars.toLocaleString('en')} characters, the first ${diff.text.length.toLocaleString('en')} are shown: <code>bareagent diff ${visible(workflowId)} ${range}</code> prints it all</p>` : ''
  }</details>`;
}

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) return 'd-head';
  if (line.startsWith('@@')) return 'd-hunk';
  if (line.startsWith('+')) return 'd-add';
  if (line.startsWith('-')) return 'd-del';
  return 'd-ctx';
}
