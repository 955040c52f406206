import { setShellQuoteLoader, tokenize } from '../../src/loop/shell-tokenizer';

test('shell-quote loads on first use, through the loader a workflow can replace', () => {
  let loads = 0;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const isolated = require('../../src/loop/shell-tokenizer') as typeof import('../../src/loop/shell-tokenizer');
    isolated.setShellQuoteLoader(() => {
      loads += 1;
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require('shell-quote') as typeof import('shell-quote');
    });
    expect(loads).toBe(0);
    expect(isolated.tokenize('git status', () => '')).toEqual(['git', 'status']);
    expect(isolated.tokenize('ls && pwd', () => '')).toEqual(['ls', { op: '&&' }, 'pwd']);
    expect(loads).toBe(1);
  });
  expect(typeof setShellQuoteLoader).toBe('function');
  expect(tokenize("echo 'a b'", () => '')).toEqual(['echo', 'a b']);
});
