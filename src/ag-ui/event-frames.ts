import { EventType, type BaseEvent } from '@ag-ui/core';
import type { RunEvent } from '../common/events';
import type { StepRecord } from '../common/wire';
import { inputDigest } from '../loop/input-digest';

/** One AG-UI event and its id `<offset>:<n>`: the n-th event made from the workflow stream's event at that offset. */
export interface Frame {
  id: string;
  event: BaseEvent;
  /** The last event of an AG-UI run: the turn ended, a human is asked, or the run failed. */
  ends?: boolean;
}

/** Where a client is in the stream: the id it saw last, as `<offset>:<n>`. */
export interface Position {
  offset: number;
  n: number;
}

export const parsePosition = (id: string): Position | undefined => {
  const match = /^(\d+):(\d+)$/.exec(id.trim());
  return match ? { offset: Number(match[1]), n: Number(match[2]) } : undefined;
};

const after = (frame: Position, last: Position) => frame.offset > last.offset || (frame.offset === last.offset && frame.n > last.n);

/** The key under each event's metadata that repeats its id, for clients that do not see the SSE `id:` line. */
export const EVENT_ID_KEY = 'bareagent.eventId';

/**
 * Turns the run's event stream, read from offset 0, into AG-UI events. The translation depends on
 * the stream alone (a text message is the run's text deltas between two other events, its id the
 * offset of its first delta), so a page process that restarted makes the same events with the
 * same ids.
 */
export class FrameMaker {
  private openText: { messageId: string } | undefined;

  constructor(
    private readonly threadId: string,
    private readonly runId: string,
  ) {}

  /** The text message still open after the events seen so far, if any. */
  openMessage(): string | undefined {
    return this.openText?.messageId;
  }

  framesOf(offset: number, event: RunEvent): Frame[] {
    const out: BaseEvent[] = [];
    let ends = false;
    if (event.type !== 'text' && this.openText) {
      out.push({ type: EventType.TEXT_MESSAGE_END, messageId: this.openText.messageId } as BaseEvent);
      this.openText = undefined;
    }
    switch (event.type) {
      case 'text':
        if (!this.openText) {
          this.openText = { messageId: `msg-${offset}` };
          out.push({ type: EventType.TEXT_MESSAGE_START, messageId: this.openText.messageId, role: 'assistant' } as BaseEvent);
        }
        if (event.delta) out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.openText.messageId, delta: event.delta } as BaseEvent);
        break;
      case 'tool_call':
        out.push(
          { type: EventType.TOOL_CALL_START, toolCallId: event.id, toolCallName: event.name } as BaseEvent,
          { type: EventType.TOOL_CALL_ARGS, toolCallId: event.id, delta: JSON.stringify(event.input ?? {}) } as BaseEvent,
          { type: EventType.TOOL_CALL_END, toolCallId: event.id } as BaseEvent,
        );
        break;
      case 'tool_result':
        out.push({ type: EventType.TOOL_CALL_RESULT, messageId: `result-${event.id}`, toolCallId: event.id, content: event.preview, role: 'tool' } as BaseEvent);
        break;
      case 'step': {
        const record = event.record as StepRecord | undefined;
        if (record) {
          out.push({ type: EventType.STATE_SNAPSHOT, snapshot: { step: record.step_id, phase: record.reason, budgets: record.budget_after } } as BaseEvent);
          if (record.reason === 'idle') {
            out.push(this.finished());
            ends = true;
          }
        }
        break;
      }
      case 'permission_request':
        out.push(
          this.finished({
            type: 'interrupt',
            interrupts: [
              {
                id: event.requestId,
                reason: 'tool_approval',
                message: `Allow ${event.tool}?`,
                toolCallId: event.toolCallId,
                expiresAt: event.deadline,
                // The input whole, and the digest an answer names: it answers what was shown, nothing else.
                metadata: { tool: event.tool, input: event.input, inputDigest: inputDigest(event.tool, event.input), ...(event.workflowId ? { workflowId: event.workflowId } : {}) },
              },
            ],
          }),
        );
        ends = true;
        break;
      case 'permission_decided':
        out.push({ type: EventType.CUSTOM, name: 'bareagent.permission_decided', value: { requestId: event.requestId, toolCallId: event.toolCallId, decision: event.decision, reason: event.reason } } as BaseEvent);
        break;
      case 'final':
        out.push(this.finished(undefined, event.text));
        ends = true;
        break;
      case 'failed':
        out.push({ type: EventType.RUN_ERROR, message: event.message, code: event.failureType } as BaseEvent);
        ends = true;
        break;
      default:
        break;
    }
    return out.map((item, n) => {
      const id = `${offset}:${n}`;
      return { id, event: { ...item, metadata: { [EVENT_ID_KEY]: id } }, ...(ends && n === out.length - 1 ? { ends: true } : {}) };
    });
  }

  private finished(outcome?: unknown, result?: string): BaseEvent {
    return { type: EventType.RUN_FINISHED, threadId: this.threadId, runId: this.runId, ...(outcome ? { outcome } : {}), ...(result !== undefined ? { result } : {}) } as BaseEvent;
  }
}

/**
 * The frames a client that saw `last` gets next, up to the end of the turn. A text message or a
 * tool call the client saw open is opened again (the same id, no event id of its own) so that the
 * new response is a valid AG-UI run; its content is never sent twice.
 */
export function* framesAfter(maker: FrameMaker, offset: number, event: RunEvent, last: Position | undefined, state: { started: boolean }): Generator<Frame | { reopen: BaseEvent }> {
  const openBefore = maker.openMessage();
  const frames = maker.framesOf(offset, event);
  for (const frame of frames) {
    const position = parsePosition(frame.id) as Position;
    if (last && !after(position, last)) continue;
    if (!state.started) {
      state.started = true;
      const type = frame.event.type;
      if (openBefore && (type === EventType.TEXT_MESSAGE_CONTENT || type === EventType.TEXT_MESSAGE_END)) {
        yield { reopen: { type: EventType.TEXT_MESSAGE_START, messageId: openBefore, role: 'assistant' } as BaseEvent };
      }
      if (type === EventType.TOOL_CALL_ARGS || type === EventType.TOOL_CALL_END) {
        const toolCallId = (frame.event as unknown as { toolCallId: string }).toolCallId;
        const name = event.type === 'tool_call' ? event.name : '';
        yield { reopen: { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: name } as BaseEvent };
      }
    }
    yield frame;
  }
}
