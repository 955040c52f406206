import { responseToMessage, stopReasonOf, type LLMResponse } from '../common/messages';
import { classifyReply, createReplyState, EMPTY_REPLY_NUDGE } from '../loop/reply';
import type { Transition } from '../loop/transitions';
import type { RunState } from './run-state';

const TRUNCATION_RECOVERY_PROMPT =
  'Your previous reply was cut off by the output token limit. Continue exactly where it stopped; do not repeat what you already wrote.';

/** What a reply leads to: its tool calls run, its answer is proposed, or a transition of its own. */
export type ReplyOutcome = Transition | 'tool_calls' | 'answer';

/**
 * A reply in its turn (src/loop/reply.ts): a truncated piece is kept and recovered, an empty
 * reply is nudged once and never sent back to the provider, an answer is proposed whole.
 */
export function takeReply(state: RunState, response: LLMResponse): ReplyOutcome {
  const seen = classifyReply(state.reply ?? createReplyState(), {
    text: response.text,
    toolCalls: response.toolCalls.length,
    stopReason: stopReasonOf(response),
  });
  state.reply = seen.state;
  const { verdict } = seen;
  if (verdict.kind === 'empty_again') {
    const message = 'LLM call failed: EmptyReply: the model replied with no text and no tool call twice in a row';
    return { kind: 'stop', reason: 'empty_reply', message, detail: 'empty reply twice in a row' };
  }
  if (verdict.kind === 'empty') {
    state.messages.push({ role: 'user', content: EMPTY_REPLY_NUDGE });
    return { kind: 'empty_reply' };
  }
  // An assistant message with neither text nor tool calls is invalid on the wire (OpenAI rejects it).
  if (response.text || response.toolCalls.length > 0) state.messages.push(responseToMessage(response));
  if (verdict.kind === 'tool_calls') {
    state.lastText = response.text;
    return 'tool_calls';
  }
  if (verdict.kind === 'truncated') {
    state.messages.push({ role: 'user', content: TRUNCATION_RECOVERY_PROMPT });
    return { kind: 'output_truncated', recoveries: verdict.recoveries, perTurn: true };
  }
  state.lastText = verdict.text;
  return 'answer';
}
