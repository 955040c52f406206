import type { LLMResponse, ToolCall, ToolResultBlock } from '../common/messages';
import { describeIssues } from '../common/input';
import { FINAL_ANSWER_TOOL, toolSchemas, type ToolArgs } from '../common/tool-schemas';
import type { Transition } from '../loop/transitions';
import type { ReplyOutcome } from './reply-step';
import type { RunState } from './run-state';

export const TEXT_REPLY_NUDGE =
  'That reply was text, not a tool call: it is kept as a note, not taken as your answer. Go on with your tools (read the files involved before you change them); when the task is done and checked, call final_answer.';
const NOT_ALONE = 'Not taken: call final_answer alone, in a reply of its own, once you have seen the results of your other calls.';
const RECEIVED = 'Received: your answer is proposed; the run ends once its checks pass.';

/** What a reply means in a run with `finalAnswer: "tool"`, and the calls its tool round runs. */
export interface FinalAnswerReply {
  reply: ReplyOutcome;
  calls: ToolCall[];
  /** Results for final_answer calls that were not taken, for the tool round's results message. */
  results: ToolResultBlock[];
}

/**
 * The final answer as a tool (input `finalAnswer: "tool"`): only a `final_answer` call proposes an
 * answer, and only alone in its reply; a text reply is a note the run keeps, and the model is told
 * to go on. The call gets its tool result at once, so the history stays a valid conversation for a
 * follow-up or an acceptance check that sends the model back to work.
 */
export function takeFinalAnswer(state: RunState, response: LLMResponse, reply: ReplyOutcome): FinalAnswerReply {
  if (reply === 'answer') {
    state.notes = [...(state.notes ?? []), state.lastText];
    state.lastText = '';
    state.messages.push({ role: 'user', content: TEXT_REPLY_NUDGE });
    return { reply: { kind: 'text_reply', chars: response.text.length }, calls: [], results: [] };
  }
  if (reply !== 'tool_calls') return { reply, calls: response.toolCalls, results: [] };
  const finals = response.toolCalls.filter((call) => call.name === FINAL_ANSWER_TOOL);
  if (finals.length === 0) return { reply, calls: response.toolCalls, results: [] };
  const others = response.toolCalls.filter((call) => call.name !== FINAL_ANSWER_TOOL);
  if (others.length > 0) return { reply, calls: others, results: finals.map((call) => result(call, NOT_ALONE, true)) };
  const [call, ...more] = finals as [ToolCall, ...ToolCall[]];
  const parsed = toolSchemas.final_answer.safeParse(call.input);
  if (!parsed.success) {
    const message = call.parseError ?? describeIssues(parsed.error);
    state.messages.push({ role: 'user', content: finals.map((c) => result(c, `Invalid arguments: ${message}. Call final_answer again with "answer".`, true)) });
    const failed: Transition = { kind: 'next_turn', calls: [call], evidence: 0 };
    return { reply: failed, calls: [], results: [] };
  }
  if (response.text.trim()) state.notes = [...(state.notes ?? []), response.text];
  state.finalAnswer = parsed.data;
  state.lastText = answerText(parsed.data);
  state.messages.push({ role: 'user', content: [result(call, RECEIVED, false), ...more.map((c) => result(c, NOT_ALONE, true))] });
  return { reply: 'answer', calls: [], results: [] };
}

/** The run's answer text: the answer, then what changed and how it was checked, when the call says. */
export function answerText(args: ToolArgs<'final_answer'>): string {
  return [args.answer, args.changes ? `Changed: ${args.changes}` : '', args.checks ? `Checked: ${args.checks}` : ''].filter(Boolean).join('\n\n');
}

function result(call: ToolCall, content: string, isError: boolean): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: call.id, content, is_error: isError };
}
