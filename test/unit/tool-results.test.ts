import {
  deniedResult,
  handlerErrorResult,
  stringifyOutput,
  toolResult,
  unknownToolResult,
  USER_DENIED,
} from '../../src/loop/tool-results';

describe('stringifyOutput (the seed\'s _stringify_output)', () => {
  const circular: Record<string, unknown> = { name: 'loop' };
  circular.self = circular;

  test.each<[string, unknown, string]>([
    ['a string as it is', 'line 1\nline 2', 'line 1\nline 2'],
    ['an empty string', '', ''],
    ['a string that looks like JSON', '{"a":1}', '{"a":1}'],
    ['null', null, ''],
    ['undefined', undefined, ''],
    ['an object as JSON', { files: ['a.ts'], count: 1 }, '{"files":["a.ts"],"count":1}'],
    ['an array as JSON', [1, 'two'], '[1,"two"]'],
    ['a number as JSON', 42, '42'],
    ['a boolean as JSON', false, 'false'],
    ['a function (JSON has none)', () => 1, ''],
    ['a circular object falls back to String()', circular, '[object Object]'],
  ])('%s', (_what, output, expected) => {
    expect(stringifyOutput(output)).toBe(expected);
  });
});

describe('tool_result blocks', () => {
  test('a result block carries the id, the stringified output and is_error', () => {
    expect(toolResult('toolu_1', { ok: true })).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: '{"ok":true}',
      is_error: false,
    });
    expect(toolResult('toolu_1', null, true)).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: '', is_error: true });
  });

  test.each([
    ['denied (by a human or fail-closed)', deniedResult('toolu_2'), 'User denied.'],
    ['unknown tool', unknownToolResult('toolu_2', 'frobnicate'), 'Unknown tool: frobnicate'],
    ['handler error', handlerErrorResult('toolu_2', 'FileNotFoundError', 'no such file: a.ts'), 'Error: FileNotFoundError: no such file: a.ts'],
  ])('%s: an error result with the seed\'s text', (_what, block, content) => {
    expect(block).toEqual({ type: 'tool_result', tool_use_id: 'toolu_2', content, is_error: true });
  });

  test('USER_DENIED is the seed\'s text', () => {
    expect(USER_DENIED).toBe('User denied.');
  });
});
