import {
  createFailureStreak,
  errorKindOf,
  FAILURE_STREAK_MAX_TOOLS,
  FailureStreakState,
  observeFailure,
  REPEATED_FAILURE_LIMIT,
  type FailureObservation,
  type FailureVerdict,
} from '../../src/loop/failure-streak';

function run(observations: readonly FailureObservation[], limit?: number) {
  let state = createFailureStreak();
  const verdicts: FailureVerdict[] = observations.map((o) => {
    const next = limit === undefined ? observeFailure(state, o) : observeFailure(state, o, limit);
    state = next.state;
    return next.verdict;
  });
  return { verdicts, state, stops: verdicts.map((v) => v.stop) };
}

const fnf = (tool = 'read_file'): FailureObservation => ({ tool, errorKind: 'FileNotFoundError' });
const ok = (tool = 'read_file'): FailureObservation => ({ tool, errorKind: null });

describe('observeFailure', () => {
  test('the same tool failing with the same kind 3 times running stops with REPEATED_FAILURE', () => {
    expect(REPEATED_FAILURE_LIMIT).toBe(3);
    const { verdicts } = run([fnf(), fnf(), fnf()]);
    expect(verdicts).toEqual([
      { stop: false },
      { stop: false },
      { stop: true, reason: 'REPEATED_FAILURE', count: 3, detail: 'read_file failed 3 times running with FileNotFoundError' },
    ]);
  });

  test('a success of that tool ends the streak', () => {
    expect(run([fnf(), fnf(), ok(), fnf(), fnf()]).stops).toEqual([false, false, false, false, false]);
  });

  test('a failure of another kind starts a new streak of that kind', () => {
    const denied: FailureObservation = { tool: 'read_file', errorKind: 'UserDenied' };
    const { stops, verdicts } = run([fnf(), fnf(), denied, denied, denied]);
    expect(stops).toEqual([false, false, false, false, true]);
    expect(verdicts[4]).toMatchObject({ detail: 'read_file failed 3 times running with UserDenied' });
  });

  test('other tools in between neither add to the streak nor end it', () => {
    expect(run([fnf(), ok('bash'), fnf(), fnf('glob'), fnf()]).stops).toEqual([false, false, false, false, true]);
  });

  test('each tool has its own streak; the tool name is normalised', () => {
    expect(run([fnf('bash'), fnf('read_file'), fnf('Bash '), fnf('read_file')]).stops).toEqual([false, false, false, false]);
    const { verdicts } = run([fnf('Bash'), fnf('bash'), fnf(' BASH')]);
    expect(verdicts[2]).toMatchObject({ stop: true, detail: 'bash failed 3 times running with FileNotFoundError' });
  });

  test('the limit is a parameter; past it the verdict stays stop', () => {
    expect(run([fnf(), fnf()], 2).stops).toEqual([false, true]);
    expect(run([fnf(), fnf(), fnf(), fnf()]).verdicts[3]).toMatchObject({ stop: true, count: 4 });
  });

  test('plain JSON state, never mutated, survives a round trip (continue-as-new)', () => {
    const first = run([fnf(), fnf()]);
    const snapshot = JSON.stringify(first.state);
    const carried = FailureStreakState.parse(JSON.parse(snapshot));
    expect(observeFailure(carried, fnf()).verdict.stop).toBe(true);
    observeFailure(first.state, ok());
    expect(JSON.stringify(first.state)).toBe(snapshot);
    expect(run([fnf(), ok()]).state.streaks).toEqual({});
  });

  test(`at most ${FAILURE_STREAK_MAX_TOOLS} failing tools are tracked: the least recent go first`, () => {
    const names = Array.from({ length: FAILURE_STREAK_MAX_TOOLS + 10 }, (_, i) => `made_up_${i}`);
    const { state } = run(names.map((name) => ({ tool: name, errorKind: 'UnknownTool' })));
    const tracked = Object.keys(state.streaks);
    expect(tracked).toHaveLength(FAILURE_STREAK_MAX_TOOLS);
    expect(tracked).not.toContain('made_up_9');
    expect(tracked).toContain('made_up_10');
    expect(tracked).toContain(`made_up_${FAILURE_STREAK_MAX_TOOLS + 9}`);
  });
});

describe('errorKindOf', () => {
  test.each<[string, string, boolean, string | null]>([
    ['a handler error', 'Error: FileNotFoundError: no such file: a.ts', true, 'FileNotFoundError'],
    ['invalid arguments', 'Error: InvalidArguments: bash: command: required', true, 'InvalidArguments'],
    ['a dotted type', 'Error: Provider.Timeout: took too long', true, 'Provider.Timeout'],
    ['a type with no message', 'Error: WorkspaceEscapeError', true, 'WorkspaceEscapeError'],
    ['a denial', 'User denied.', true, 'UserDenied'],
    ['an unknown tool', 'Unknown tool: frobnicate', true, 'UnknownTool'],
    ['an error in no known form', 'something broke', true, 'Error'],
    ['"Error:" followed by prose, not a type', 'Error: the file is locked', true, 'Error'],
    ['a failing bash command (is_error false)', 'Command failed with exit code 2\nstderr: boom', false, null],
    ['a success that mentions an error', 'Error: FileNotFoundError: quoted in a log', false, null],
    ['an empty success', '', false, null],
  ])('%s', (_what, content, isError, expected) => {
    expect(errorKindOf(content, isError)).toBe(expected);
  });
});
