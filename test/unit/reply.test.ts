import { classifyReply, createReplyState, type Reply, type ReplyState } from '../../src/loop/reply';

const reply = (text: string, finishReason = 'stop', toolCalls = 0): Reply => ({ text, finishReason, toolCalls });

function run(replies: Reply[]) {
  let state: ReplyState = createReplyState();
  return replies.map((r) => {
    const seen = classifyReply(state, r);
    state = seen.state;
    return seen.verdict;
  });
}

test('an answer cut by the token limit is recovered and returned whole', () => {
  expect(run([reply('Part one, ', 'length'), reply('part two, ', 'length'), reply('end.')])).toEqual([
    { kind: 'truncated', recoveries: 1 },
    { kind: 'truncated', recoveries: 2 },
    { kind: 'answer', text: 'Part one, part two, end.' },
  ]);
});

test('recoveries are counted per turn: a new turn gets its own three', () => {
  const verdicts = run([
    reply('a', 'length'), reply('b', 'length'), reply('c', 'length'), reply('d'),
    reply('', 'tool_calls', 1),
    reply('e', 'length'), reply('f', 'length'), reply('g', 'length'), reply('h'),
  ]);
  expect(verdicts.filter((v) => v.kind === 'truncated')).toHaveLength(6);
  expect(verdicts.at(-1)).toEqual({ kind: 'answer', text: 'efgh' });
});

test('past three recoveries in one turn, what came is the answer', () => {
  expect(run([reply('a', 'length'), reply('b', 'length'), reply('c', 'length'), reply('d', 'length')]).at(-1)).toEqual({ kind: 'answer', text: 'abcd' });
});

test('an empty reply is nudged once; a second in a row ends the run; a real answer resets', () => {
  expect(run([reply(''), reply('  \n')])).toEqual([{ kind: 'empty' }, { kind: 'empty_again' }]);
  expect(run([reply(''), reply('Done.'), reply('')]).map((v) => v.kind)).toEqual(['empty', 'answer', 'empty']);
});

test('a tool call is never an empty reply, text or not', () => {
  expect(run([reply('', 'tool_calls', 2)])).toEqual([{ kind: 'tool_calls' }]);
});
