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

const byAction: ProgressOptions = { failuresByAction: true };
const perTool: ProgressOptions = { failuresByAction: false };
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
  expect(run([missing('a'), missing('a')], { failuresByAction: true, limits }).seen[1]?.failureWarned).toBe(true);
  const { seen, state } = run([denied, denied], byAction);
  expect(seen.every((s) => !s.failureWarned && !s.stop)).toBe(true);
  expect(state.failureStreak).toEqual(createFailureStreak());
});

test('per tool (older runs): the same tool failing three times running stops, never warns; a denial resets the streak', () => {
  const { seen } = run([missing('a'), missing('b'), missing('c')], perTool);
  expect(seen.map((s) => s.failureWarned)).toEqual([false, false, false]);
  expect(seen[2]?.stop).toEqual({
    reason: 'REPEATED_FAILURE',
    message: 'Repeated failure: read_file failed 3 times running with FileNotFoundError',
    detail: 'read_file failed 3 times running with FileNotFoundError',
  });
  expect(run([missing('a'), missing('b'), denied, missing('c')], perTool).seen.every((s) => !s.stop)).toBe(true);
});

test('per tool (older runs): a NO_PROGRESS stop leaves the failure streak as it was', () => {
  const failing: Outcome = ['bash', { command: 'make' }, 'Error: Timeout', true];
  const { seen } = run([same, same, same, same, failing, same], perTool);
  const last = seen.at(-1);
  expect(last?.stop?.reason).toBe('NO_PROGRESS');
  expect(last?.state.failureStreak).toEqual(seen.at(-2)?.state.failureStreak);
  expect(last?.state.failureStreak).toEqual({ seen: 1, streaks: { bash: { kind: 'Timeout', count: 1, lastSeen: 1 } } });
});
