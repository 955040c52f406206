import { Message } from '../../src/common/messages';
import { parseToolArguments, toChatMessages } from '../../src/activities/model/providers/openai/wire-format';

describe('toChatMessages: content blocks to Chat Completions messages', () => {
  test.each<[string, Message[], unknown[]]>([
    [
      'string messages keep their role, system included',
      [
        { role: 'system', content: 'Background task updates' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ],
      [
        { role: 'system', content: 'Background task updates' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ],
    ],
    [
      'assistant text + tool_use → content + tool_calls (arguments as a JSON string)',
      [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'call_1', name: 'read_file', input: { file_path: 'a.ts' } },
            { type: 'tool_use', id: 'call_2', name: 'bash', input: { command: 'ls', timeout: 30 } },
          ],
        },
      ],
      [
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"a.ts"}' } },
            { id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command":"ls","timeout":30}' } },
          ],
        },
      ],
    ],
    [
      'assistant tool_use alone → null content; raw (unparsed) arguments go back as they came; no input → {}',
      [
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_1', name: 'bash', input: '{"command": ' },
            { type: 'tool_use', id: 'call_2', name: 'todo_read', input: undefined },
          ],
        },
      ],
      [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command": ' } },
            { id: 'call_2', type: 'function', function: { name: 'todo_read', arguments: '{}' } },
          ],
        },
      ],
    ],
    [
      'assistant text blocks only → joined text, no tool_calls',
      [{ role: 'assistant', content: [{ type: 'text', text: 'Part one, ' }, { type: 'text', text: 'part two.' }] }],
      [{ role: 'assistant', content: 'Part one, part two.' }],
    ],
    [
      'a user tool_result message → one `tool` message per result, in order',
      [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '1: export {}', is_error: false },
            { type: 'tool_result', tool_use_id: 'call_2', content: 'User denied.', is_error: true },
          ],
        },
      ],
      [
        { role: 'tool', tool_call_id: 'call_1', content: '1: export {}' },
        { role: 'tool', tool_call_id: 'call_2', content: 'User denied.' },
      ],
    ],
    [
      'tool results and user text in one message → tool messages first, then the text',
      [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: 'ok', is_error: false },
            { type: 'text', text: 'Also, hurry.' },
          ],
        },
      ],
      [
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
        { role: 'user', content: 'Also, hurry.' },
      ],
    ],
    [
      'a user message of text blocks → one user message',
      [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      [{ role: 'user', content: 'Hi' }],
    ],
  ])('%s', (_what, messages, expected) => {
    expect(toChatMessages(messages)).toEqual(expected);
  });

  test('a system prompt comes first', () => {
    expect(toChatMessages([{ role: 'user', content: 'Hi' }], 'Be brief.')).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(toChatMessages([{ role: 'user', content: 'Hi' }], '')).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  test('a whole tool round', () => {
    const round: Message[] = [
      { role: 'user', content: 'List files' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'glob', input: { pattern: '*' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.ts', is_error: false }] },
      { role: 'assistant', content: [{ type: 'text', text: 'One file: a.ts' }] },
    ];
    expect(toChatMessages(round).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});

describe('parseToolArguments', () => {
  test.each<[string, string, { input: unknown; parseError?: RegExp }]>([
    ['a JSON object', '{"file_path":"a.ts","limit":5}', { input: { file_path: 'a.ts', limit: 5 } }],
    ['an empty object', '{}', { input: {} }],
    ['an empty string → {}', '', { input: {} }],
    ['whitespace → {}', '  \n', { input: {} }],
    ['invalid JSON', '{"file_path": ', { input: '{"file_path": ', parseError: /^invalid JSON \(.+\)$/ }],
    ['an array', '["a.ts"]', { input: '["a.ts"]', parseError: /^arguments must be a JSON object$/ }],
    ['null', 'null', { input: 'null', parseError: /^arguments must be a JSON object$/ }],
    ['a string', '"a.ts"', { input: '"a.ts"', parseError: /^arguments must be a JSON object$/ }],
    ['a number', '42', { input: '42', parseError: /^arguments must be a JSON object$/ }],
  ])('%s', (_what, raw, expected) => {
    const call = parseToolArguments('call_1', 'read_file', raw);
    expect(call.id).toBe('call_1');
    expect(call.name).toBe('read_file');
    expect(call.input).toEqual(expected.input);
    if (expected.parseError) expect(call.parseError).toMatch(expected.parseError);
    else expect(call).not.toHaveProperty('parseError');
  });
});

test('an assistant message with neither text nor tool calls is left off the wire', () => {
  const messages: Message[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [] },
    { role: 'user', content: 'still there?' },
  ];
  expect(toChatMessages(messages).map((m) => m.role)).toEqual(['user', 'user']);
});

test('reasoning goes back with a tool call under its field, in the shape recorded before the adapters too; another provider\'s stays out', () => {
  const call = { type: 'tool_use' as const, id: 'c1', name: 'glob', input: {} };
  const recorded = Message.parse({ role: 'assistant', content: [call], reasoning: { field: 'reasoning_content', text: 'old' } });
  expect(recorded.reasoning).toEqual({ text: 'old', provider: 'openai', part: { field: 'reasoning_content' } });
  const raw = { role: 'assistant', content: [call], reasoning: { field: 'reasoning', text: 'raw' } } as unknown as Message;
  const foreign: Message = { role: 'assistant', content: [call], reasoning: { text: 'theirs', provider: 'anthropic', part: { blocks: [] } } };
  const sent = toChatMessages([recorded, raw, foreign]) as unknown as Array<Record<string, unknown>>;
  expect(sent.map((m) => m.reasoning_content ?? m.reasoning)).toEqual(['old', 'raw', undefined]);
});
