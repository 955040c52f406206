import type { BudgetSnapshot } from './wire';

/**
 * The failures a client sees: each crosses the Temporal boundary as `ApplicationFailure.type`,
 * so a caller can tell why a run ended without parsing messages.
 */
export const FailureType = {
  LLMCallError: 'LLMCallError',
  InvalidInput: 'InvalidInput',
  NoProgress: 'NoProgress',
  BudgetExceeded: 'BudgetExceeded',
  RepeatedFailure: 'RepeatedFailure',
  AcceptanceFailed: 'AcceptanceFailed',
  Cancelled: 'Cancelled',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Why the loop stopped: the step record says `stop:<reason>`. */
export type StopReason =
  | 'final_answer'
  | 'max_iterations'
  | 'budget_tokens'
  | 'budget_cost'
  | 'budget_wall_clock'
  | 'cancelled'
  | 'NO_PROGRESS'
  | 'REPEATED_FAILURE'
  | 'provider_error'
  | 'empty_reply'
  | 'acceptance_failed'
  /** No step and no activity heartbeat for the run's `stallTimeout` (time waiting for a human aside). */
  | 'stalled';

/** The failure types a stop can end a run with (bad input fails before the loop starts). */
export type StopFailureType = Exclude<FailureType, 'InvalidInput'>;

const FAILURE_OF: Record<StopReason, StopFailureType | null> = {
  final_answer: null,
  // The iteration limit is an LLMCallError ("Agent loop exceeded <n> iterations"), not a budget.
  max_iterations: FailureType.LLMCallError,
  provider_error: FailureType.LLMCallError,
  empty_reply: FailureType.LLMCallError,
  budget_tokens: FailureType.BudgetExceeded,
  budget_cost: FailureType.BudgetExceeded,
  budget_wall_clock: FailureType.BudgetExceeded,
  cancelled: FailureType.Cancelled,
  NO_PROGRESS: FailureType.NoProgress,
  REPEATED_FAILURE: FailureType.RepeatedFailure,
  acceptance_failed: FailureType.AcceptanceFailed,
  stalled: FailureType.NoProgress,
};

/** The `ApplicationFailure.type` of a run that stopped for this reason; null for the one successful stop. */
export function failureTypeOf(reason: StopReason): StopFailureType | null {
  return FAILURE_OF[reason];
}

/** The details of a stop's failure: why, how far the run got, and the step that recorded it. */
export interface StopDetails {
  reason: StopReason;
  detail: string;
  budget: BudgetSnapshot;
  stepId: number;
}
