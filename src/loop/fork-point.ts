import type { ContentBlock, Message, ToolResultBlock } from '../common/messages';
import type { StepRecord } from '../common/wire';

export type ForkPoint =
  | { ok: true; step: number; messages: Message[]; closedToolCalls: number }
  | { ok: false; message: string };

/**
 * The origin's conversation as it stood right after its step `step` was recorded (the STEP column
 * of `bareagent history`); without `step`, the whole conversation. Each step record keeps the
 * conversation's length at that moment (`message_count`): the cut is that prefix. A full
 * compaction after the step replaced the turns before it with a summary, so those steps are gone.
 */
export function forkPoint(messages: readonly Message[], steps: readonly StepRecord[], step?: number): ForkPoint {
  if (messages.length === 0) return { ok: false, message: 'the origin has no conversation' };
  const last = steps.at(-1)?.step_id ?? 0;
  if (step === undefined) return closed(last, messages);
  if (step > last) return { ok: false, message: `step ${step} is past the origin's last step (${last})` };
  const record = steps.find((candidate) => candidate.step_id === step);
  if (!record) {
    const first = steps[0]?.step_id ?? last;
    return { ok: false, message: `step ${step} is older than the steps this run keeps (${first}-${last}); give forkFrom.runId of the earlier run that recorded it` };
  }
  if (record.message_count === undefined) {
    return { ok: false, message: `the origin's step records do not keep the conversation's length (recorded before forks existed): fork at its end (no step)` };
  }
  const summarised = steps.filter((later) => later.step_id > step && later.reason === 'compacted:full').at(-1);
  if (summarised) {
    return { ok: false, message: `step ${step} was summarised away by the compaction at step ${summarised.step_id}: fork at step ${summarised.step_id} or later` };
  }
  return closed(step, messages.slice(0, record.message_count));
}

function closed(step: number, messages: readonly Message[]): ForkPoint {
  const { messages: valid, closed: closedToolCalls } = closeOpenToolCalls(messages);
  return { ok: true, step, messages: valid, closedToolCalls };
}

export const NOT_RUN_IN_ORIGIN = 'Error: this tool call did not run: the run it was asked in stopped first. Nothing of it happened; ask again if it is still needed.';

/**
 * A run stopped in the middle of a tool round (cancelled, a worker lost) leaves an assistant turn
 * whose tool calls have no results, which no model accepts: each gets an error result saying it
 * never ran.
 */
export function closeOpenToolCalls(messages: readonly Message[]): { messages: Message[]; closed: number } {
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    for (const block of message.content) if (block.type === 'tool_result') answered.add(block.tool_use_id);
  }
  let lastAssistant = messages.length - 1;
  while (lastAssistant >= 0 && messages[lastAssistant]?.role !== 'assistant') lastAssistant--;
  const turn = messages[lastAssistant];
  const open = turn && Array.isArray(turn.content) ? turn.content.filter((block) => block.type === 'tool_use' && !answered.has(block.id)) : [];
  if (open.length === 0) return { messages: [...messages], closed: 0 };
  const results: ToolResultBlock[] = open.map((block: ContentBlock) => ({
    type: 'tool_result',
    tool_use_id: (block as { id: string }).id,
    content: NOT_RUN_IN_ORIGIN,
    is_error: true,
  }));
  return { messages: [...messages.slice(0, lastAssistant + 1), { role: 'user', content: results }, ...messages.slice(lastAssistant + 1)], closed: open.length };
}
