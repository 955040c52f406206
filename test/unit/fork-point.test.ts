import type { Message } from '../../src/common/messages';
import type { StepRecord } from '../../src/common/wire';
import { closeOpenToolCalls, forkPoint, NOT_RUN_IN_ORIGIN } from '../../src/loop/fork-point';

const step = (step_id: number, message_count: number | undefined, reason = 'next_turn'): StepRecord =>
  ({ step_id, reason, tools: [], evidence_delta: 0, ...(message_count === undefined ? {} : { message_count }) }) as unknown as StepRecord;

const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'bash', input: { command: `echo ${id}` } }] });
const result = (id: string): Message => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: id, is_error: false }] });

// prompt, then two tool turns, then the answer: steps 1 and 2 end with tool results, step 3 with the answer.
const messages: Message[] = [{ role: 'user', content: 'go' }, call('a'), result('a'), call('b'), result('b'), { role: 'assistant', content: 'done' }];
const steps = [step(1, 3), step(2, 5), step(3, 6, 'stop:final_answer')];

test('step N cuts the conversation where step N was recorded', () => {
  expect(forkPoint(messages, steps, 1)).toEqual({ ok: true, step: 1, messages: messages.slice(0, 3), closedToolCalls: 0 });
  expect(forkPoint(messages, steps, 2)).toMatchObject({ ok: true, step: 2, messages: messages.slice(0, 5) });
});

test('no step: the whole conversation, at the last step', () => {
  expect(forkPoint(messages, steps)).toEqual({ ok: true, step: 3, messages, closedToolCalls: 0 });
});

test('a step past the end, one no longer kept, or one without a length is refused with the reason', () => {
  expect(forkPoint(messages, steps, 4)).toEqual({ ok: false, message: "step 4 is past the origin's last step (3)" });
  expect(forkPoint(messages, steps.slice(1), 1)).toMatchObject({ ok: false, message: expect.stringContaining('older than the steps this run keeps (2-3)') });
  expect(forkPoint(messages, [step(1, undefined)], 1)).toMatchObject({ ok: false, message: expect.stringContaining('fork at its end') });
});

test('a step summarised away by a later full compaction is refused; micro compaction is not in the way', () => {
  const compacted = [step(1, 3), step(2, 5, 'compacted:micro'), step(3, 2, 'compacted:full'), step(4, 5)];
  expect(forkPoint(messages, compacted, 1)).toMatchObject({ ok: false, message: expect.stringContaining('compaction at step 3: fork at step 3 or later') });
  expect(forkPoint(messages, compacted, 4)).toMatchObject({ ok: true, messages: messages.slice(0, 5) });
});

test('tool calls left without results (the origin stopped mid-round) get error results saying they never ran', () => {
  const cut = closeOpenToolCalls([...messages.slice(0, 3), call('c')]);
  expect(cut.closed).toBe(1);
  expect(cut.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: NOT_RUN_IN_ORIGIN, is_error: true }] });
  expect(forkPoint([...messages.slice(0, 3), call('c')], [step(1, 3), step(2, 4, 'stop:cancelled')])).toMatchObject({ ok: true, closedToolCalls: 1 });
});

test('an empty conversation cannot be forked', () => {
  expect(forkPoint([], [])).toEqual({ ok: false, message: 'the origin has no conversation' });
});
