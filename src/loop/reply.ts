import type { ModelStopReason } from '../common/messages';

/**
 * What a model reply without tool calls means for the turn. A reply cut by the output-token limit
 * gets a recovery prompt (at most `maxRecoveries` times in one turn) and its text is kept, so the
 * answer is the whole of it; an empty reply is not an answer: the model is nudged once, and a
 * second empty reply in a row ends the run.
 */
export interface ReplyState {
  /** Recovery prompts sent in this turn. */
  recoveries: number;
  /** The text of this turn's truncated pieces so far. */
  answerSoFar: string;
  /** Empty replies in a row. */
  emptyReplies: number;
}

export type ReplyVerdict =
  | { kind: 'tool_calls' }
  | { kind: 'truncated'; recoveries: number }
  | { kind: 'empty' }
  | { kind: 'empty_again' }
  | { kind: 'answer'; text: string };

export interface Reply {
  text: string;
  toolCalls: number;
  stopReason: ModelStopReason;
}

export const MAX_TRUNCATION_RECOVERIES = 3;
export const EMPTY_REPLY_NUDGE =
  'Your last reply was empty: no text and no tool call. Answer the task, or call a tool to make progress.';

export function createReplyState(): ReplyState {
  return { recoveries: 0, answerSoFar: '', emptyReplies: 0 };
}

export function classifyReply(state: ReplyState, reply: Reply, maxRecoveries = MAX_TRUNCATION_RECOVERIES): { state: ReplyState; verdict: ReplyVerdict } {
  if (reply.toolCalls > 0) return { state: createReplyState(), verdict: { kind: 'tool_calls' } };
  if (reply.stopReason === 'output_limit' && state.recoveries < maxRecoveries) {
    const recoveries = state.recoveries + 1;
    return { state: { recoveries, answerSoFar: state.answerSoFar + reply.text, emptyReplies: 0 }, verdict: { kind: 'truncated', recoveries } };
  }
  const text = state.answerSoFar + reply.text;
  if (text.trim() === '') {
    const emptyReplies = state.emptyReplies + 1;
    return { state: { ...state, emptyReplies }, verdict: emptyReplies > 1 ? { kind: 'empty_again' } : { kind: 'empty' } };
  }
  return { state: createReplyState(), verdict: { kind: 'answer', text } };
}
