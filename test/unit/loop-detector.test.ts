import { actionFingerprint, evidenceHash } from '../../src/loop/fingerprint';
import {
  createLoopDetector,
  LOOP_FORGET_AFTER_STEPS,
  LOOP_MAX_ENTRIES,
  LOOP_STOP_AT,
  LOOP_WARN_AT,
  LoopDetectorState,
  observe,
  REPEATED_ACTION_MESSAGE,
  type LoopVerdict,
} from '../../src/loop/loop-detector';

const grep = actionFingerprint('grep', { pattern: 'TODO', path: 'src' });
const read = actionFingerprint('read_file', { file_path: 'a.ts' });
const noMatch = evidenceHash('No matches found');

/** Feeds observations one step apart and returns every verdict plus the last state. */
function run(
  observations: readonly { fingerprint: string; evidence: string; step?: number }[],
  start: LoopDetectorState = createLoopDetector(),
): { verdicts: LoopVerdict[]; state: LoopDetectorState } {
  let state = start;
  const verdicts = observations.map((o, i) => {
    const next = observe(state, { step: i + 1, ...o });
    state = next.state;
    return next.verdict;
  });
  return { verdicts, state };
}

const kinds = (verdicts: LoopVerdict[]) => verdicts.map((v) => v.kind);

describe('loop detector', () => {
  test('the seed\'s constants and message', () => {
    expect([LOOP_WARN_AT, LOOP_STOP_AT]).toEqual([3, 5]);
    expect(REPEATED_ACTION_MESSAGE).toBe('Repeated action detected; diagnose before retrying');
  });

  test('the same action with the same result: ok, ok, warn at 3 and 4, stop NO_PROGRESS at 5', () => {
    const { verdicts } = run(Array.from({ length: 5 }, () => ({ fingerprint: grep, evidence: noMatch })));
    expect(verdicts).toEqual([
      { kind: 'ok' },
      { kind: 'ok' },
      { kind: 'warn', count: 3, message: REPEATED_ACTION_MESSAGE },
      { kind: 'warn', count: 4, message: REPEATED_ACTION_MESSAGE },
      { kind: 'stop', count: 5, reason: 'NO_PROGRESS' },
    ]);
  });

  test('past the stop threshold it keeps saying stop (a caller that goes on is told again)', () => {
    const { verdicts } = run(Array.from({ length: 6 }, () => ({ fingerprint: grep, evidence: noMatch })));
    expect(verdicts[5]).toEqual({ kind: 'stop', count: 6, reason: 'NO_PROGRESS' });
  });

  test('the same grep on a changed file is progress: the count starts again with the new result', () => {
    const before = evidenceHash('src/a.ts:3: // TODO one');
    const after = evidenceHash('src/a.ts:3: // TODO one\nsrc/a.ts:9: // TODO two');
    const { verdicts, state } = run([
      { fingerprint: grep, evidence: before },
      { fingerprint: grep, evidence: before },
      { fingerprint: grep, evidence: before }, // warn
      { fingerprint: grep, evidence: after }, // the file changed: 1 again
      { fingerprint: grep, evidence: after },
      { fingerprint: grep, evidence: after }, // warn again, 3 with the new evidence
      { fingerprint: grep, evidence: after },
      { fingerprint: grep, evidence: after }, // stop
    ]);
    expect(kinds(verdicts)).toEqual(['ok', 'ok', 'warn', 'ok', 'ok', 'warn', 'warn', 'stop']);
    expect(state.entries[grep]).toEqual({ count: 5, evidence: after, firstStep: 4, lastStep: 8 });
  });

  test('newEvidence: true for a first occurrence and a changed result, false for a repeat', () => {
    let state = createLoopDetector();
    const flags = [noMatch, noMatch, evidenceHash('a match'), evidenceHash('a match')].map((evidence, i) => {
      const next = observe(state, { fingerprint: grep, evidence, step: i + 1 });
      state = next.state;
      return next.newEvidence;
    });
    expect(flags).toEqual([true, false, true, false]);
  });

  test('a result that flips back to the first one is still new evidence since the last reset', () => {
    const a = evidenceHash('a');
    const b = evidenceHash('b');
    const { verdicts } = run([
      { fingerprint: grep, evidence: a },
      { fingerprint: grep, evidence: a },
      { fingerprint: grep, evidence: b },
      { fingerprint: grep, evidence: a },
      { fingerprint: grep, evidence: a },
    ]);
    expect(kinds(verdicts)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
  });

  test('other actions in between do not reset a repeated one; each fingerprint counts on its own', () => {
    const content = evidenceHash('1: export {}');
    const { verdicts } = run([
      { fingerprint: grep, evidence: noMatch },
      { fingerprint: read, evidence: content },
      { fingerprint: grep, evidence: noMatch },
      { fingerprint: read, evidence: content },
      { fingerprint: grep, evidence: noMatch }, // grep 3
      { fingerprint: read, evidence: content }, // read 3
    ]);
    expect(kinds(verdicts)).toEqual(['ok', 'ok', 'ok', 'ok', 'warn', 'warn']);
  });

  test('several observations in one step (the same call twice in one response) each count', () => {
    const state = createLoopDetector();
    const one = observe(state, { fingerprint: grep, evidence: noMatch, step: 7 });
    const two = observe(one.state, { fingerprint: grep, evidence: noMatch, step: 7 });
    const three = observe(two.state, { fingerprint: grep, evidence: noMatch, step: 7 });
    expect(three.verdict).toEqual({ kind: 'warn', count: 3, message: REPEATED_ACTION_MESSAGE });
  });

  test('observe never mutates the state it is given', () => {
    const state = createLoopDetector();
    const frozen = JSON.stringify(state);
    const next = observe(state, { fingerprint: grep, evidence: noMatch, step: 1 });
    expect(JSON.stringify(state)).toBe(frozen);
    const snapshot = JSON.stringify(next.state);
    observe(next.state, { fingerprint: grep, evidence: noMatch, step: 2 });
    expect(JSON.stringify(next.state)).toBe(snapshot);
  });

  test('the state is plain JSON: a round trip (continue-as-new) keeps counting where it was', () => {
    const first = run([
      { fingerprint: grep, evidence: noMatch },
      { fingerprint: grep, evidence: noMatch },
    ]);
    const carried = LoopDetectorState.parse(JSON.parse(JSON.stringify(first.state)));
    const next = observe(carried, { fingerprint: grep, evidence: noMatch, step: 3 });
    expect(next.verdict.kind).toBe('warn');
  });

  test(`an action unseen for more than ${LOOP_FORGET_AFTER_STEPS} steps is forgotten`, () => {
    let state = createLoopDetector();
    state = observe(state, { fingerprint: grep, evidence: noMatch, step: 1 }).state;
    state = observe(state, { fingerprint: grep, evidence: noMatch, step: 2 }).state;
    const within = observe(state, { fingerprint: grep, evidence: noMatch, step: 2 + LOOP_FORGET_AFTER_STEPS });
    expect(within.verdict.kind).toBe('warn');
    const stale = observe(state, { fingerprint: grep, evidence: noMatch, step: 3 + LOOP_FORGET_AFTER_STEPS });
    expect(stale.verdict.kind).toBe('ok');
    expect(stale.state.entries[grep]?.count).toBe(1);
    // Forgetting also drops other stale entries, not only the one observed.
    const other = observe(state, { fingerprint: read, evidence: noMatch, step: 3 + LOOP_FORGET_AFTER_STEPS });
    expect(Object.keys(other.state.entries)).toEqual([read]);
  });

  test(`at most ${LOOP_MAX_ENTRIES} entries: the least recently seen go first, the observed one stays`, () => {
    let state = createLoopDetector();
    for (let i = 0; i < LOOP_MAX_ENTRIES + 25; i++) {
      state = observe(state, { fingerprint: `fp-${i}`, evidence: noMatch, step: 1 + Math.floor(i / 10) }).state;
    }
    const keys = Object.keys(state.entries);
    expect(keys).toHaveLength(LOOP_MAX_ENTRIES);
    expect(keys).toContain(`fp-${LOOP_MAX_ENTRIES + 24}`);
    // Ten per step: steps 1 and 2 (fp-0..fp-19) went, then 5 of step 3's ten, by fingerprint.
    expect(keys.filter((key) => /^fp-1?\d$/.test(key))).toEqual([]);
    expect(keys.filter((key) => /^fp-2\d$/.test(key)).sort()).toEqual(['fp-20', 'fp-21', 'fp-22', 'fp-23', 'fp-24']);
    expect(keys).toContain('fp-30');
  });
});
