import type { Message } from '../../src/common/messages';
import {
  applySummary,
  DEFAULT_COMPACTION,
  estimateTokens,
  fullCompactionBoundary,
  headLength,
  isSummaryMessage,
  isUsableSummary,
  microCompact,
  olderMessages,
  planCompaction,
  renderTranscript,
  safeTailStarts,
  summaryRequestMessages,
  SUMMARY_INSTRUCTIONS,
  type CompactionOptions,
} from '../../src/loop/compaction';
import { toChatMessages } from '../../src/activities/model/providers/openai/wire-format';

const task: Message = { role: 'user', content: 'Fix the failing test in src/a.ts' };
const call = (id: string, name: string, input: unknown, text?: string): Message => ({
  role: 'assistant',
  content: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool_use', id, name, input }],
});
const result = (id: string, content: string, isError = false): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }],
});
/** task, then `rounds` tool rounds (read_file, bash alternating), each result `size` chars. */
function history(rounds: number, size = 1000): Message[] {
  const messages: Message[] = [task];
  for (let i = 1; i <= rounds; i++) {
    const name = i % 2 ? 'read_file' : 'bash';
    messages.push(call(`t${i}`, name, { file_path: `f${i}.ts` }), result(`t${i}`, String(i % 10).repeat(size)));
  }
  return messages;
}
const resultContents = (messages: Message[]) =>
  messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.flatMap((b) => (b.type === 'tool_result' ? [b.content] : []))));

describe('estimateTokens', () => {
  test('a quarter of the characters of the JSON of each content, rounded up; deterministic', () => {
    expect(estimateTokens([])).toBe(0);
    expect(estimateTokens([{ role: 'user', content: 'abcdef' }])).toBe(2); // "abcdef" with quotes = 8 chars
    const messages = history(4, 4000);
    const chars = messages.reduce((n, m) => n + JSON.stringify(m.content).length, 0);
    expect(estimateTokens(messages)).toBe(Math.ceil(chars / 4));
    expect(estimateTokens(messages)).toBe(estimateTokens(history(4, 4000)));
  });
});

describe('microCompact', () => {
  test('every tool result but the last 3 becomes a placeholder naming its tool and original size', () => {
    const messages = history(5, 1000);
    const { messages: out, truncated } = microCompact(messages);
    expect(truncated).toBe(2);
    expect(resultContents(out)).toEqual([
      '[truncated: read_file result, 1000 chars]',
      '[truncated: bash result, 1000 chars]',
      '3'.repeat(1000),
      '4'.repeat(1000),
      '5'.repeat(1000),
    ]);
    expect(out[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '[truncated: read_file result, 1000 chars]', is_error: false }] });
  });

  test('the last 3 are counted in blocks across the history, several per message included', () => {
    const messages: Message[] = [
      task,
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'glob', input: {} }, { type: 'tool_use', id: 'b', name: 'grep', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'x'.repeat(500), is_error: false },
          { type: 'tool_result', tool_use_id: 'b', content: 'y'.repeat(500), is_error: true },
        ],
      },
      call('c', 'read_file', {}),
      result('c', 'z'.repeat(500)),
      call('d', 'bash', {}),
      result('d', 'w'.repeat(500)),
    ];
    const { messages: out, truncated } = microCompact(messages);
    expect(truncated).toBe(1);
    expect(resultContents(out)).toEqual(['[truncated: glob result, 500 chars]', 'y'.repeat(500), 'z'.repeat(500), 'w'.repeat(500)]);
  });

  test('keeps is_error, other blocks and unchanged messages; never mutates its input', () => {
    const messages = [...history(4, 800)];
    messages[2] = { role: 'user', content: [{ type: 'text', text: 'note' }, { type: 'tool_result', tool_use_id: 't1', content: 'E'.repeat(800), is_error: true }] };
    const before = JSON.stringify(messages);
    const { messages: out } = microCompact(messages);
    expect(JSON.stringify(messages)).toBe(before);
    expect(out).not.toBe(messages);
    expect(out[2]?.content).toEqual([{ type: 'text', text: 'note' }, { type: 'tool_result', tool_use_id: 't1', content: '[truncated: read_file result, 800 chars]', is_error: true }]);
    expect(out[0]).toBe(messages[0]); // untouched messages are shared, not copied
    expect(out[8]).toBe(messages[8]);
  });

  test('already truncated results, and results shorter than a placeholder, are left alone', () => {
    const once = microCompact(history(6, 1000)).messages;
    const twice = microCompact(once);
    expect(twice.truncated).toBe(0);
    expect(twice.messages).toEqual(once);
    const small = history(5, 20);
    expect(microCompact(small)).toEqual({ messages: small, truncated: 0 });
  });

  test('a result whose tool_use is not in the history is named unknown', () => {
    const messages: Message[] = [task, result('gone', 'q'.repeat(300)), ...history(3).slice(1)];
    expect(resultContents(microCompact(messages).messages)[0]).toBe('[truncated: unknown result, 300 chars]');
  });

  test('keepRecent is a parameter', () => {
    expect(microCompact(history(5, 1000), 0).truncated).toBe(5);
    expect(microCompact(history(5, 1000), 5).truncated).toBe(0);
  });
});

describe('safe boundaries', () => {
  test('never start the kept tail on a tool_result message', () => {
    const messages = history(3);
    // 0 task, 1 call, 2 result, 3 call, 4 result, 5 call, 6 result
    expect(safeTailStarts(messages)).toEqual([true, true, false, true, false, true, false]);
  });

  test('a system notification between rounds is a safe start; a follow-up question is too', () => {
    const messages: Message[] = [
      ...history(2),
      { role: 'system', content: '<background-notifications>...</background-notifications>' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'And the other test?' },
    ];
    expect(safeTailStarts(messages)).toEqual([true, true, false, true, false, true, true, true]);
  });

  test('headLength is through the first user message (the task)', () => {
    expect(headLength(history(2))).toBe(1);
    expect(headLength([{ role: 'system', content: 'note' }, task])).toBe(2);
    expect(headLength([])).toBe(0);
  });
});

describe('planCompaction', () => {
  const options: CompactionOptions = { thresholdTokens: 2000, keepRecentToolResults: 3, keepRecentMessages: 6 };

  test('the defaults are BareAgent\'s', () => {
    expect(DEFAULT_COMPACTION).toEqual({ thresholdTokens: 50_000, keepRecentToolResults: 3, keepRecentMessages: 6 });
  });

  test('none at or under the threshold', () => {
    const messages = history(2, 1000);
    expect(planCompaction(messages, options)).toEqual({ kind: 'none', tokens: estimateTokens(messages) });
    expect(planCompaction(history(5, 1000))).toMatchObject({ kind: 'none' }); // default threshold 50,000
  });

  test('over it: micro first; then, when micro has nothing left and it is still over, full', () => {
    const messages = history(10, 3000);
    expect(planCompaction(messages, options)).toMatchObject({ kind: 'micro' });
    const micro = microCompact(messages).messages;
    expect(estimateTokens(micro)).toBeGreaterThan(2000);
    const plan = planCompaction(micro, options);
    // 21 messages; the last 6 are 15..20; 15 is a call (safe).
    expect(plan).toEqual({ kind: 'full', tokens: estimateTokens(micro), keepFrom: 15 });
  });

  test('the kept tail never starts on a tool_result: it grows by one to the call before', () => {
    const messages = microCompact(history(10, 1000)).messages;
    // keepRecentMessages 5 would start at 16, a result: 15 is chosen.
    expect(fullCompactionBoundary(messages, 5)).toBe(15);
    expect(fullCompactionBoundary(messages, 6)).toBe(15);
    expect(fullCompactionBoundary(messages, 7)).toBe(13);
  });

  test('none when nothing can be summarised: too short, or only an earlier summary is older', () => {
    const bigTail = history(3, 20_000); // 7 messages, results too big for the threshold
    expect(planCompaction(microCompact(bigTail).messages, options)).toMatchObject({ kind: 'none' });
    const compacted = applySummary(history(10, 1000), 15, 'earlier work');
    expect(compacted).toHaveLength(8);
    expect(fullCompactionBoundary(compacted, 6)).toBeUndefined();
    const grown = [...compacted, call('t11', 'bash', {}), result('t11', 'ok')];
    expect(fullCompactionBoundary(grown, 6)).toBe(4);
  });
});

describe('full compaction', () => {
  const messages = microCompact(history(10, 1000)).messages;
  const keepFrom = 15;

  test('olderMessages: what the summary replaces, the task excluded', () => {
    expect(olderMessages(messages, keepFrom)).toEqual(messages.slice(1, 15));
  });

  test('applySummary: [task, summary, ...tail], tagged, the text trimmed; a new array', () => {
    const out = applySummary(messages, keepFrom, '  Read f1..f7; the bug is in f3.\n');
    expect(out).toEqual([
      task,
      { role: 'user', content: '<compacted-summary>\nRead f1..f7; the bug is in f3.\n</compacted-summary>' },
      ...messages.slice(15),
    ]);
    expect(isSummaryMessage(out[1]!)).toBe(true);
    expect(messages).toHaveLength(21);
  });

  test('the result is valid on the Chat Completions wire: every tool message follows its call', () => {
    const chat = toChatMessages(applySummary(messages, keepFrom, 'summary'));
    const called = new Set<string>();
    for (const m of chat) {
      if (m.role === 'assistant') for (const c of m.tool_calls ?? []) called.add(c.id);
      if (m.role === 'tool') expect(called.has(m.tool_call_id)).toBe(true);
    }
    expect(chat.map((m) => m.role).slice(0, 4)).toEqual(['user', 'user', 'assistant', 'tool']);
  });

  test('a keepFrom that is not a safe boundary, out of range, or a blank summary throws', () => {
    expect(() => applySummary(messages, 16, 'summary')).toThrow(/separate a tool_result/);
    expect(() => applySummary(messages, 1, 'summary')).toThrow(RangeError);
    expect(() => applySummary(messages, 22, 'summary')).toThrow(RangeError);
    expect(() => applySummary(messages, keepFrom, ' \n')).toThrow(/blank/);
    expect(isUsableSummary('')).toBe(false);
  });
});

describe('summaryRequestMessages', () => {
  test('one user message: the instructions, then the older turns rendered as text', () => {
    const older: Message[] = [
      call('t1', 'read_file', { file_path: 'a.ts' }, 'Let me look.'),
      result('t1', '1: export const a = 1;'),
      call('t2', 'bash', { command: 'npm test', timeout: 60 }),
      result('t2', 'Error: TimeoutError: npm test took too long', true),
    ];
    const [request, ...rest] = summaryRequestMessages(older);
    expect(rest).toEqual([]);
    expect(request?.role).toBe('user');
    expect(request?.content).toBe(
      `${SUMMARY_INSTRUCTIONS}\n\n<transcript>\n` +
        '[assistant]\nLet me look.\n→ read_file({"file_path":"a.ts"})\n\n' +
        '[user]\n← read_file: 1: export const a = 1;\n\n' +
        '[assistant]\n→ bash({"command":"npm test","timeout":60})\n\n' +
        '[user]\n← bash (error): Error: TimeoutError: npm test took too long\n</transcript>',
    );
    for (const topic of ['goals', 'decisions', 'files', 'open problems']) expect(SUMMARY_INSTRUCTIONS).toContain(topic);
  });

  test('long blocks are clipped, so the summarising request stays bounded', () => {
    const text = renderTranscript([call('t1', 'write_file', { content: 'x'.repeat(5000) }), result('t1', 'y'.repeat(9000))]);
    expect(text.length).toBeLessThan(4200);
    expect(text).toContain('… [7000 more chars]');
  });

  test('an earlier summary and string messages are rendered as they are', () => {
    const text = renderTranscript([{ role: 'user', content: '<compacted-summary>\nold\n</compacted-summary>' }, { role: 'assistant', content: 'ok' }]);
    expect(text).toBe('[user]\n<compacted-summary>\nold\n</compacted-summary>\n\n[assistant]\nok');
  });
});
