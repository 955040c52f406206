import type { ModelStopReason } from '../../src/common/messages';
import { classifyReply, createReplyState, type Reply, type ReplyState } from '../../src/loop/reply';

const reply = (text: string, stopReason: ModelStopReason = 'end', toolCalls = 0): Reply => ({ text, stopReason, toolCalls });

function run(replies: Reply[]) {
  let state: ReplyState = createReplyState();
  return replies.map((r) => {
    const seen = classifyReply(state, r);
    state = seen.state;
    return seen.verdict;
  });
}

test('an answer cut by the token limit is recovered and returned whole', () => {
  expect(run([reply('Part one, ', 'output_limit'), reply('part two, ', 'output_limit'), reply('end.')])).toEqual([
    { kind: 'truncated', recoveries: 1 },
    { kind: 'truncated', recoveries: 2 },
    { kind: 'answer', text: 'Part one, part two, end.' },
  ]);
});

test('recoveries are counted per turn: a new turn gets its own three', () => {
  const verdicts = run([
    reply('a', 'output_limit'), reply('b', 'output_limit'), reply('c', 'output_limit'), reply('d'),
    reply('', 'tool_calls', 1),
    reply('e', 'output_limit'), reply('f', 'output_limit'), reply('g', 'output_limit'), reply('h'),
  ]);
  expect(verdicts.filter((v) => v.kind === 'truncated')).toHaveLength(6);
  expect(verdicts.at(-1)).toEqual({ kind: 'answer', text: 'efgh' });
});

test('past three recoveries in one turn, what came is the answer', () => {
  expect(run([reply('a', 'output_limit'), reply('b', 'output_limit'), reply('c', 'output_limit'), reply('d', 'output_limit')]).at(-1)).toEqual({ kind: 'answer', text: 'abcd' });
});

test('an empty reply is nudged once; a second in a row ends the run; a real answer resets', () => {
  expect(run([reply(''), reply('  \n')])).toEqual([{ kind: 'empty' }, { kind: 'empty_again' }]);
  expect(run([reply(''), reply('Done.'), reply('')]).map((v) => v.kind)).toEqual(['empty', 'answer', 'empty']);
});

test('a tool call is never an empty reply, text or not', () => {
  expect(run([reply('', 'tool_calls', 2)])).toEqual([{ kind: 'tool_calls' }]);
});
