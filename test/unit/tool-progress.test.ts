import { createFailureStreak } from '../../src/loop/failure-streak';
import { createLoopDetector } from '../../src/loop/loop-detector';
import { observeToolOutcome, type ProgressObservation, type ProgressOptions, type ProgressState } from '../../src/loop/tool-progress';

type Outcome = [name: string, input: unknown, content: string, isError: boolean];

function run(outcomes: Outcome[], options: ProgressOptions): { seen: ProgressObservation[]; state: ProgressState } {
  let state: ProgressState = { loopDetector: createLoopDetector(), failureStreak: createFailureStreak() };
  const seen = outcomes.map(([name, input, content, isError], i) => {
    const observed = observeToolOutcome(state, { name, input, content, isError, step: i + 1 }, options);
    state = observed.state;
    return observed;
  });
  return { seen, state };
}

const byAction: ProgressOptions = {};
const missing = (file: string): Outcome => ['read_file', { file_path: file }, `Error: FileNotFoundError: ${file}`, true];
const denied: Outcome = ['bash', { command: 'rm -rf x' }, 'User denied.', true];
const same: Outcome = ['grep', { pattern: 'x' }, 'a.txt:1: x', false];

test('the same call with the same result: new evidence once, warned at the third, NO_PROGRESS at the fifth', () => {
  const { seen } = run([same, same, same, same, same], byAction);
  expect(seen.map((s) => s.newEvidence)).toEqual([true, false, false, false, false]);
  expect(seen.map((s) => s.actionWarned)).toEqual([false, false, true, true, false]);
  expect(seen.slice(0, 4).every((s) => s.stop === undefined)).toBe(true);
  expect(seen[4]?.stop).toEqual({ reason: 'NO_PROGRESS', message: 'No progress: grep repeated 5 times with the same result', detail: 'NO_PROGRESS: grep ×5' });
});

test('per action: the same failing call is warned at the third and REPEATED_FAILURE wins over NO_PROGRESS at the fifth', () => {
  const { seen } = run([missing('a'), missing('a'), missing('a'), missing('a'), missing('a')], byAction);
  expect(seen.map((s) => s.failureWarned)).toEqual([false, false, true, true, false]);
  expect(seen[4]?.stop).toEqual({
    reason: 'REPEATED_FAILURE',
    message: 'Repeated failure: the same read_file call failed 5 times with FileNotFoundError',
    detail: 'the same read_file call failed 5 times with FileNotFoundError',
  });
});

test('per action: the limits from the input apply; a denial touches no failure count', () => {
  const limits = { warnAt: 2, stopAt: 3 };
  expect(run([missing('a'), missing('a')], { limits }).seen[1]?.failureWarned).toBe(true);
  const { seen, state } = run([denied, denied], byAction);
  expect(seen.every((s) => !s.failureWarned && !s.stop)).toBe(true);
  expect(state.failureStreak).toEqual(createFailureStreak());
});
