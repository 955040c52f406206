import type { Message, ToolResultBlock, ToolUseBlock } from '../common/messages';
import { toolResult } from './tool-results';

/** What the model reads for a call the user's turn cancel stopped (or kept from starting). */
export const CANCELLED_TOOL_RESULT = 'Cancelled by the user before it finished: its effects, if any, are unknown. Ask before running it again.';
/** The note that tells the model, at its next call, that the user stopped the last turn. */
export const TURN_CANCELLED_NOTE = '[The user cancelled the turn above. Do not continue it unless the next message asks you to.]';

/**
 * The message that closes a cancelled turn: every tool call of the last reply gets a result (the
 * ones it finished, in `finished`, as they came; the others a cancelled result), so the next model
 * call sees a valid conversation. `cancelled` names the calls that got the cancelled result.
 */
export function closeCancelledTurn(messages: readonly Message[], finished: readonly ToolResultBlock[]): { message: Message; cancelled: ToolUseBlock[] } {
  const open = openToolCalls(messages);
  const done = new Map(finished.map((result) => [result.tool_use_id, result]));
  const cancelled = open.filter((call) => !done.has(call.id));
  const results = open.map((call) => done.get(call.id) ?? toolResult(call.id, CANCELLED_TOOL_RESULT, true));
  const note = { type: 'text' as const, text: TURN_CANCELLED_NOTE };
  return { message: { role: 'user', content: results.length > 0 ? [...results, note] : TURN_CANCELLED_NOTE }, cancelled };
}

/** The last reply's tool calls when no message after it answers them: what a turn cancelled mid-round leaves open. */
function openToolCalls(messages: readonly Message[]): ToolUseBlock[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant' || typeof last.content === 'string') return [];
  return last.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}
