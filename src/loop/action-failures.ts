import { FAILURE_STREAK_MAX_TOOLS, type FailureStreakState } from './failure-streak';

/**
 * Repeated failure as it is meant: the *same action* (tool and normalised arguments: its
 * fingerprint) failing *the same way* (error type). The `warnAt`-th such failure adds a warning to
 * the tool round; the `stopAt`-th stops the run. The action succeeding, or failing another way,
 * starts its count again; other actions neither add to it nor end it. A human's denial is a
 * decision, not a failure: it is not observed at all. The state has the shape of the per-tool
 * streak it replaces (keyed by fingerprint instead of tool name), so it carries the same way.
 */
export interface FailureLimits {
  warnAt: number;
  stopAt: number;
}

export const DEFAULT_FAILURE_LIMITS: FailureLimits = { warnAt: 3, stopAt: 5 };

export const REPEATED_FAILURE_MESSAGE = 'The same call has failed the same way several times; change the approach before trying it again';

/**
 * Added to the warning when the call that keeps failing is an edit_file: the one call that would
 * work. A small file was shown whole, numbered, in the miss just above: rewrite it whole, which
 * needs no old_text to match. A larger one: read it, and copy old_text from what read_file shows.
 */
export function editFailureNudge(filePath: string, shownWhole: boolean): string {
  return shownWhole
    ? `Stop editing ${filePath} piece by piece: the result above shows it as it is now. Call write_file with file_path ${JSON.stringify(filePath)} and the whole new content of the file (without the "12: " line prefixes).`
    : `Call read_file on ${filePath} now and copy old_text exactly from its output (without the "12: " line prefixes), or change a smaller part of the file.`;
}

/** How an edit_file miss starts (src/activities/tools/edit-miss.ts): the one failure the edit nudge is for. */
export const EDIT_MISS_TEXT = 'old_text not found in file';
const EDIT_MISS = new RegExp(`^Error: \\w+: ${EDIT_MISS_TEXT} `);
/** The error type of a write to a file the run may not write (the acceptance check's test). */
export const READ_ONLY_FILE = 'ReadOnlyFile';
const READ_ONLY_REFUSAL = new RegExp(`^Error: ${READ_ONLY_FILE}: `);

/** Whether a tool result is an edit_file miss. */
export const isEditMiss = (content: string): boolean => EDIT_MISS.test(content);
/** Whether a tool result is a write refused because the file is read-only to the run. */
export const isReadOnlyRefusal = (content: string): boolean => READ_ONLY_REFUSAL.test(content);

/**
 * Added to the warning when the call that keeps failing writes a file that is read-only to the run:
 * told to copy old_text again, the 1.5B model rewrote the test file unchanged until the run stopped.
 */
export function readOnlyFailureNudge(filePath: string): string {
  return `${filePath} is read-only to this run, and every write of it fails: leave it as it is. Change the code it checks, run the check, then give your answer.`;
}

export type ActionFailureVerdict =
  | { kind: 'ok' }
  | { kind: 'warn'; count: number }
  | { kind: 'stop'; count: number; detail: string };

export interface ActionOutcome {
  fingerprint: string;
  /** For the stop's detail. */
  tool: string;
  /** From `errorKindOf`; null when the call succeeded. */
  errorKind: string | null;
}

export function observeActionFailure(
  state: FailureStreakState,
  outcome: ActionOutcome,
  limits: FailureLimits = DEFAULT_FAILURE_LIMITS,
): { state: FailureStreakState; verdict: ActionFailureVerdict } {
  const seen = state.seen + 1;
  const others = Object.entries(state.streaks).filter(([key]) => key !== outcome.fingerprint);
  if (outcome.errorKind === null) return { state: { seen, streaks: Object.fromEntries(others) }, verdict: { kind: 'ok' } };
  const previous = state.streaks[outcome.fingerprint];
  const count = previous && previous.kind === outcome.errorKind ? previous.count + 1 : 1;
  const kept = others.sort(([, a], [, b]) => b.lastSeen - a.lastSeen).slice(0, FAILURE_STREAK_MAX_TOOLS - 1);
  const streaks = Object.fromEntries([...kept, [outcome.fingerprint, { kind: outcome.errorKind, count, lastSeen: seen }]]);
  const verdict: ActionFailureVerdict =
    count >= limits.stopAt
      ? { kind: 'stop', count, detail: `the same ${outcome.tool} call failed ${count} times with ${outcome.errorKind}` }
      : count >= limits.warnAt
        ? { kind: 'warn', count }
        : { kind: 'ok' };
  return { state: { seen, streaks }, verdict };
}
