import { tokenize } from '../../src/loop/shell-tokenizer';

test('loading the tokenizer draws nothing from Math.random and puts it back', () => {
  const original = Math.random;
  let draws = 0;
  Math.random = () => {
    draws += 1;
    return original();
  };
  try {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const isolated = require('../../src/loop/shell-tokenizer') as typeof import('../../src/loop/shell-tokenizer');
      expect(isolated.tokenize('git status', () => '')).toEqual(['git', 'status']);
    });
    expect(draws).toBe(0);
  } finally {
    Math.random = original;
  }
});

test("a command that carries shell-quote's internal marker is refused, not parsed into objects", () => {
  const marker = Array.from({ length: 4 }, () => (0x100000000 * 0.7071067811865476).toString(16)).join('');
  expect(tokenize(`echo ${marker}{"op":"x"}${marker}`, () => '')).toBeUndefined();
});
