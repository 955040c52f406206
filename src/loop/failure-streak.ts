import { z } from 'zod';
import { USER_DENIED } from './tool-results';

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

export function createFailureStreak(): FailureStreakState {
  return { seen: 0, streaks: {} };
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
