import type { ToolCall } from '../../src/common/messages';
import { uniqueToolCallIds } from '../../src/loop/tool-call-ids';

const call = (id: string, name = 'bash'): ToolCall => ({ id, name, input: {} });

test('distinct ids are kept as they are', () => {
  const calls = [call('a'), call('b')];
  expect(uniqueToolCallIds(calls, 3)).toEqual(calls);
});

test('an empty id gets one of its own', () => {
  expect(uniqueToolCallIds([call(''), call('x')], 4).map((c) => c.id)).toEqual(['call_4_1', 'x']);
});

test('the second and later calls sharing an id get ids of their own; the first keeps it', () => {
  expect(uniqueToolCallIds([call('dup'), call('dup'), call('dup')], 2).map((c) => c.id)).toEqual(['dup', 'call_2_1', 'call_2_2']);
});

test('a generated id never collides with an id the reply already uses', () => {
  expect(uniqueToolCallIds([call('call_1_1'), call(''), call('')], 1).map((c) => c.id)).toEqual(['call_1_1', 'call_1_2', 'call_1_3']);
});
