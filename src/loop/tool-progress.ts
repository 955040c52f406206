import { observeActionFailure, type FailureLimits } from './action-failures';
import { errorKindOf, type FailureStreakState } from './failure-streak';
import { actionFingerprint, evidenceHash } from './fingerprint';
import { observe, type LoopDetectorState } from './loop-detector';

/** What a run carries to judge progress across tool calls: the loop detector and the failure counts. */
export interface ProgressState {
  loopDetector: LoopDetectorState;
  failureStreak: FailureStreakState;
}

/** One executed tool call and its result. */
export interface ToolOutcome {
  name: string;
  input: unknown;
  content: string;
  isError: boolean;
  step: number;
}

export interface ProgressOptions {
  limits?: FailureLimits | undefined;
}

export interface ProgressStop {
  reason: 'NO_PROGRESS' | 'REPEATED_FAILURE';
  message: string;
  detail: string;
}

export interface ProgressObservation {
  state: ProgressState;
  /** A first result or a changed one: what a step record's `evidence_delta` counts. */
  newEvidence: boolean;
  /** The same action with the same result a third time (the loop detector's nudge threshold). */
  actionWarned: boolean;
  /** The same call failing the same way at the warning threshold (per-action counting only). */
  failureWarned: boolean;
  stop?: ProgressStop;
}

/**
 * One tool call seen by both the loop detector (src/loop/loop-detector.ts) and the failure
 * count (src/loop/action-failures.ts, or the per-tool streak of older runs). A call that fails
 * the same way again is also "no progress": the more specific stop, REPEATED_FAILURE, wins.
 * A human's denial is a decision, not a failure: it touches no failure count (and resets the
 * per-tool streak). When the loop detector stops an older run, its streak is left as it was.
 */
export function observeToolOutcome(state: ProgressState, outcome: ToolOutcome, options: ProgressOptions): ProgressObservation {
  const fingerprint = actionFingerprint(outcome.name, outcome.input);
  const seen = observe(state.loopDetector, { fingerprint, evidence: evidenceHash(outcome.content), step: outcome.step });
  const kind = errorKindOf(outcome.content, outcome.isError);
  let failureStreak = state.failureStreak;
  let failureWarned = false;
  const result = (stop?: ProgressStop): ProgressObservation => ({
    state: { loopDetector: seen.state, failureStreak },
    newEvidence: seen.newEvidence,
    actionWarned: seen.verdict.kind === 'warn',
    failureWarned,
    ...(stop ? { stop } : {}),
  });
  if (kind !== 'UserDenied') {
    const failed = observeActionFailure(failureStreak, { fingerprint, tool: outcome.name, errorKind: kind }, options.limits);
    failureStreak = failed.state;
    if (failed.verdict.kind === 'stop') return result(repeatedFailure(failed.verdict.detail));
    failureWarned = failed.verdict.kind === 'warn';
  }
  if (seen.verdict.kind === 'stop') {
    const { count } = seen.verdict;
    return result({
      reason: 'NO_PROGRESS',
      message: `No progress: ${outcome.name} repeated ${count} times with the same result`,
      detail: `NO_PROGRESS: ${outcome.name} ×${count}`,
    });
  }
  return result();
}

function repeatedFailure(detail: string): ProgressStop {
  return { reason: 'REPEATED_FAILURE', message: `Repeated failure: ${detail}`, detail };
}
