import type { RunEvent } from '../common/events';
import { describeAttachments } from '../common/attachments';

/** One piece of the conversation as the page shows it, folded from the run's events. */
export type Block =
  | { kind: 'step'; step: number }
  | { kind: 'text'; step: number; attempt: number; text: string }
  | { kind: 'tool'; id: string; name: string; input: unknown; result?: ToolResultView }
  | { kind: 'asked'; requestId: string; tool: string; input: unknown; deadline?: string; answerIn?: string; decided?: Decided }
  | { kind: 'note'; tone: NoteTone; text: string }
  /** The run's answer: rendered as Markdown (escaped, no raw HTML), in place of its streamed text. */
  | { kind: 'final'; text: string; stopReason: string };

export type NoteTone = 'status' | 'notification' | 'job' | 'record' | 'final' | 'failed' | 'retry';
export interface ToolResultView {
  isError: boolean;
  preview: string;
}
export interface Decided {
  decision: 'allow' | 'deny';
  reason: string;
  rule?: string;
}

/**
 * What one event does to the page: a new block, or more of an existing one (`into`: text
 * deltas join their turn's text, a result joins its call, a decision its question). The page's
 * first render folds every event through this; the live stream sends each one as it comes.
 */
export type Change =
  | { add: Block }
  | { into: string; text: string; orAdd: Block }
  | { into: string; result: ToolResultView; orAdd: Block }
  | { into: string; decided: Decided; orAdd: Block };

export function textKey(step: number, attempt: number): string {
  return `t-${step}-${attempt}`;
}
export const toolKey = (id: string) => `c-${slug(id)}`;
export const askedKey = (requestId: string) => `q-${slug(requestId)}`;

/** Element ids from ids the model chose: only [A-Za-z0-9_-], so no id can name another kind of element. */
export function slug(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

export function changeFor(event: RunEvent): Change | undefined {
  switch (event.type) {
    case 'model_call':
      return { add: { kind: 'step', step: event.step } };
    case 'text':
      return { into: textKey(event.step, event.attempt), text: event.delta, orAdd: { kind: 'text', step: event.step, attempt: event.attempt, text: event.delta } };
    case 'attempt_restart':
      return { add: { kind: 'note', tone: 'retry', text: `The model call of step ${event.step} broke off and starts again (attempt ${event.attempt}); the partial text above is dropped.` } };
    case 'tool_call':
      return { add: { kind: 'tool', id: event.id, name: event.name, input: event.input } };
    case 'tool_result': {
      const result = { isError: event.isError, preview: event.preview };
      return { into: toolKey(event.id), result, orAdd: { kind: 'tool', id: event.id, name: event.name, input: undefined, result } };
    }
    case 'permission_request':
      return { add: { kind: 'asked', requestId: event.requestId, tool: event.tool, input: event.input, deadline: event.deadline, ...(event.workflowId ? { answerIn: event.workflowId } : {}) } };
    case 'permission_decided': {
      const decided = { decision: event.decision, reason: event.reason, ...(event.rule ? { rule: event.rule } : {}) };
      return { into: askedKey(event.requestId), decided, orAdd: { kind: 'asked', requestId: event.requestId, tool: '?', input: undefined, decided } };
    }
    case 'status':
      return { add: { kind: 'note', tone: 'status', text: event.message } };
    case 'notification':
      return { add: { kind: 'note', tone: 'notification', text: event.text } };
    case 'attachments':
      return { add: { kind: 'note', tone: 'status', text: describeAttachments(event) } };
    case 'job_started':
      return { add: { kind: 'note', tone: 'job', text: `background ${event.kind} ${event.taskId} started: ${event.description}` } };
    case 'step':
      return undefined;
    case 'final':
      return { add: { kind: 'final', text: event.text, stopReason: event.stopReason } };
    case 'failed':
      return { add: { kind: 'note', tone: 'failed', text: `Failed: ${event.failureType}: ${event.message}` } };
    default:
      return undefined;
  }
}

/** The whole conversation from its events, in order. */
export function foldEvents(events: Iterable<RunEvent>): Block[] {
  const blocks: Block[] = [];
  const byKey = new Map<string, Block>();
  const keep = (block: Block) => {
    blocks.push(block);
    const key = keyOf(block);
    if (key) byKey.set(key, block);
  };
  const said = new SaidBefore();
  for (const event of events) {
    said.see(event);
    const change = changeFor(event);
    if (!change) continue;
    if ('add' in change) {
      // The answer replaces the text it streamed as: shown once, rendered.
      if (change.add.kind === 'final' && said.answers(change.add.text)) {
        const streamed = said.key === undefined ? undefined : byKey.get(said.key);
        if (streamed) blocks.splice(blocks.lastIndexOf(streamed), 1);
      }
      keep(change.add);
      continue;
    }
    const target = byKey.get(change.into);
    if (!target) keep(change.orAdd);
    else if ('text' in change && target.kind === 'text') target.text += change.text;
    else if ('result' in change && target.kind === 'tool') target.result = change.result;
    else if ('decided' in change && target.kind === 'asked') target.decided = change.decided;
  }
  return blocks;
}

export function keyOf(block: Block): string | undefined {
  if (block.kind === 'text') return textKey(block.step, block.attempt);
  if (block.kind === 'tool') return toolKey(block.id);
  if (block.kind === 'asked') return askedKey(block.requestId);
  return undefined;
}

/**
 * The agent's newest text as the events tell it (a restarted attempt's partial text dropped):
 * what the page shows beside a question as the agent's last words before it.
 */
export class SaidBefore {
  key: string | undefined;
  text = '';
  private readonly atRequest = new Map<string, string>();

  see(event: RunEvent): void {
    if (event.type === 'text') {
      const key = textKey(event.step, event.attempt);
      if (key !== this.key) {
        this.key = key;
        this.text = '';
      }
      this.text += event.delta;
    } else if (event.type === 'attempt_restart') {
      this.key = undefined;
      this.text = '';
    } else if (event.type === 'permission_request') {
      if (this.text.trim()) this.atRequest.set(event.requestId, this.text);
    }
  }

  /** The text last seen before the question `requestId` was asked. */
  before(requestId: string): string | undefined {
    return this.atRequest.get(requestId);
  }

  /** True when the final answer is the text streamed last (then the page shows it once, rendered). */
  answers(finalText: string): boolean {
    return this.key !== undefined && this.text.trim() !== '' && this.text.trim() === finalText.trim();
  }
}

/** For each question of the events, the agent's last text before it. */
export function textsBeforeQuestions(events: Iterable<RunEvent>): SaidBefore {
  const said = new SaidBefore();
  for (const event of events) said.see(event);
  return said;
}
