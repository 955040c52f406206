import { z } from 'zod';
import { normalizeToolName } from './fingerprint';
import { USER_DENIED } from './tool-results';

/** Repeated failures of one kind are a stop condition (ARCHITECTURE.md, "Loop stops"). */
export const REPEATED_FAILURE_LIMIT = 3;
/** Bound on the carried state: a model inventing tool names must not grow it without end. */
export const FAILURE_STREAK_MAX_TOOLS = 64;

const Streak = z.object({ kind: z.string(), count: z.number().int().positive(), lastSeen: z.number().int() });

/** Plain JSON: one running streak per tool that is failing now; carried across continue-as-new. */
export const FailureStreakState = z.object({
  /** Observations so far: orders the streaks for eviction without a clock. */
  seen: z.number().int().min(0),
  streaks: z.record(z.string(), Streak),
});
export type FailureStreakState = z.infer<typeof FailureStreakState>;

export interface FailureObservation {
  tool: string;
  /** From `errorKindOf`; null when the call succeeded. */
  errorKind: string | null;
}

export type FailureVerdict =
  | { stop: false }
  | { stop: true; reason: 'REPEATED_FAILURE'; count: number; detail: string };

export function createFailureStreak(): FailureStreakState {
  return { seen: 0, streaks: {} };
}

/**
 * One tool call's outcome. A tool failing with the same kind `limit` times running stops the
 * run; its success, or a failure of another kind, ends the streak. Other tools' outcomes in
 * between neither add to it nor end it: retrying a broken call around other work still counts.
 */
export function observeFailure(
  state: FailureStreakState,
  observation: FailureObservation,
  limit = REPEATED_FAILURE_LIMIT,
): { state: FailureStreakState; verdict: FailureVerdict } {
  const tool = normalizeToolName(observation.tool);
  const { errorKind } = observation;
  const seen = state.seen + 1;
  const others = Object.entries(state.streaks).filter(([name]) => name !== tool);
  if (errorKind === null) {
    return { state: { seen, streaks: Object.fromEntries(others) }, verdict: { stop: false } };
  }
  const previous = state.streaks[tool];
  const count = previous && previous.kind === errorKind ? previous.count + 1 : 1;
  const kept = others
    .sort(([, a], [, b]) => b.lastSeen - a.lastSeen)
    .slice(0, FAILURE_STREAK_MAX_TOOLS - 1);
  const streaks = Object.fromEntries([...kept, [tool, { kind: errorKind, count, lastSeen: seen }]]);
  const verdict: FailureVerdict =
    count >= limit
      ? { stop: true, reason: 'REPEATED_FAILURE', count, detail: `${tool} failed ${count} times running with ${errorKind}` }
      : { stop: false };
  return { state: { seen, streaks }, verdict };
}

/**
 * The kind of a tool_result, in the forms the tools write: `Error: <Type>: <message>`
 * → `<Type>`, `User denied.` → `UserDenied`, `Unknown tool: <name>` → `UnknownTool`.
 * Only `is_error` counts: a bash command that exits non-zero is a result the model reads, not
 * a failed call. An error in no known form is `Error`.
 */
export function errorKindOf(resultContent: string, isError: boolean): string | null {
  if (!isError) return null;
  if (resultContent.startsWith(USER_DENIED)) return 'UserDenied';
  if (resultContent.startsWith('Unknown tool:')) return 'UnknownTool';
  const match = /^Error: ([A-Za-z_$][\w$.]*)(?::|\s*$)/.exec(resultContent);
  return match?.[1] ?? 'Error';
}
