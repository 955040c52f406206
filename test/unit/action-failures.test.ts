import { observeActionFailure, type ActionFailureVerdict } from '../../src/loop/action-failures';
import { createFailureStreak } from '../../src/loop/failure-streak';
import { actionFingerprint } from '../../src/loop/fingerprint';

type Call = [tool: string, input: unknown, errorKind: string | null];

function run(calls: Call[], limits?: { warnAt: number; stopAt: number }): ActionFailureVerdict[] {
  let state = createFailureStreak();
  return calls.map(([tool, input, errorKind]) => {
    const seen = observeActionFailure(state, { fingerprint: actionFingerprint(tool, input), tool, errorKind }, limits);
    state = seen.state;
    return seen.verdict;
  });
}

const missing = (file: string): Call => ['read_file', { file_path: file }, 'FileNotFoundError'];

test('three different missing files are three actions: no warning, no stop', () => {
  expect(run([missing('a.txt'), missing('b.txt'), missing('c.txt')]).map((v) => v.kind)).toEqual(['ok', 'ok', 'ok']);
});

test('the same call failing the same way: warned at the third, stopped at the fifth', () => {
  const verdicts = run([missing('a.txt'), missing('a.txt'), missing('a.txt'), missing('a.txt'), missing('a.txt')]);
  expect(verdicts.map((v) => v.kind)).toEqual(['ok', 'ok', 'warn', 'warn', 'stop']);
  expect(verdicts[4]).toEqual({ kind: 'stop', count: 5, detail: 'the same read_file call failed 5 times with FileNotFoundError' });
});

test('other calls in between neither add nor reset; success or another error restarts the count', () => {
  const other: Call = ['glob', { pattern: '*' }, null];
  expect(run([missing('a.txt'), other, missing('a.txt'), other, missing('a.txt')]).at(-1)).toEqual({ kind: 'warn', count: 3 });
  expect(run([missing('a.txt'), missing('a.txt'), ['read_file', { file_path: 'a.txt' }, null], missing('a.txt')]).at(-1)).toEqual({ kind: 'ok' });
  expect(run([missing('a.txt'), missing('a.txt'), ['read_file', { file_path: 'a.txt' }, 'PermissionError']]).at(-1)).toEqual({ kind: 'ok' });
});

test('arguments that differ only in key order or spacing are the same action', () => {
  const verdicts = run([
    ['grep', { pattern: 'x', path: 'src' }, 'Error'],
    ['grep', { path: 'src', pattern: ' x ' }, 'Error'],
    ['grep', { pattern: 'x', path: 'src' }, 'Error'],
  ]);
  expect(verdicts.at(-1)).toEqual({ kind: 'warn', count: 3 });
});

test('the thresholds come from the run', () => {
  expect(run([missing('a'), missing('a')], { warnAt: 1, stopAt: 2 }).map((v) => v.kind)).toEqual(['warn', 'stop']);
});
