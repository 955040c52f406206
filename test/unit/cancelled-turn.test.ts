import type { Message } from '../../src/common/messages';
import { CANCELLED_TOOL_RESULT, closeCancelledTurn, TURN_CANCELLED_NOTE } from '../../src/loop/cancelled-turn';
import { toolResult } from '../../src/loop/tool-results';

const reply: Message = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'Three things.' },
    { type: 'tool_use', id: 'a', name: 'bash', input: { command: 'echo a' } },
    { type: 'tool_use', id: 'b', name: 'bash', input: { command: 'sleep 30' } },
    { type: 'tool_use', id: 'c', name: 'grep', input: { pattern: 'x' } },
  ],
};

describe('closeCancelledTurn: every tool call of the cancelled reply gets a result', () => {
  test('finished calls keep their results in the reply order; the others are answered as cancelled; the note comes last', () => {
    const finished = [toolResult('a', 'a'), toolResult('b', 'Error: command cancelled')];
    const { message, cancelled } = closeCancelledTurn([{ role: 'user', content: 'go' }, reply], finished);
    expect(message).toEqual({
      role: 'user',
      content: [toolResult('a', 'a'), toolResult('b', 'Error: command cancelled'), toolResult('c', CANCELLED_TOOL_RESULT, true), { type: 'text', text: TURN_CANCELLED_NOTE }],
    });
    expect(cancelled.map((call) => call.id)).toEqual(['c']);
  });

  test('cancelled before a reply came (or after its results were in): only the note', () => {
    for (const messages of [[{ role: 'user', content: 'go' }], [{ role: 'user', content: 'go' }, reply, { role: 'user', content: [toolResult('a', 'a')] }]] as Message[][]) {
      expect(closeCancelledTurn(messages, [])).toEqual({ message: { role: 'user', content: TURN_CANCELLED_NOTE }, cancelled: [] });
    }
  });

  test('a text reply without calls leaves nothing open', () => {
    expect(closeCancelledTurn([{ role: 'assistant', content: 'Done.' }], []).cancelled).toEqual([]);
  });
});
