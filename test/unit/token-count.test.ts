import type { Message } from '../../src/common/messages';
import { estimateTokens } from '../../src/loop/compaction';
import { contextTokens, estimateContextTokens, estimateTextTokens } from '../../src/loop/token-count';

const chinese = '请阅读这个文件并修复其中的错误，然后运行测试确认所有测试都通过。'.repeat(40);
const english = 'Please read this file, fix the bug in it, then run the tests to check that they all pass. '.repeat(40);

test('Chinese text is about a token a character, English about four characters a token', () => {
  expect(estimateTextTokens(chinese) / [...chinese].length).toBeGreaterThan(0.9);
  expect(estimateTextTokens(english) / english.length).toBeCloseTo(0.25, 2);
});

test('the old estimate saw a Chinese transcript several times too small; this one does not', () => {
  const messages: Message[] = [{ role: 'user', content: chinese }];
  expect(estimateTokens(messages)).toBeLessThan(estimateContextTokens(messages) / 3);
  const latin: Message[] = [{ role: 'user', content: english }];
  expect(Math.abs(estimateContextTokens(latin) - estimateTokens(latin))).toBeLessThan(5);
});

test("the provider's count of what was sent, plus an estimate of what came since", () => {
  const messages: Message[] = [
    { role: 'user', content: 'task' },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: '好'.repeat(100) },
  ];
  expect(contextTokens(messages, { sentCount: 1, inputTokens: 900 })).toBe(900 + estimateContextTokens(messages.slice(1)));
  // No count (a provider without usage, or the history was rewritten): the estimate alone.
  expect(contextTokens(messages, undefined)).toBe(estimateContextTokens(messages));
  expect(contextTokens(messages, { sentCount: 1, inputTokens: 0 })).toBe(estimateContextTokens(messages));
  expect(contextTokens(messages, { sentCount: 9, inputTokens: 900 })).toBe(estimateContextTokens(messages));
});
