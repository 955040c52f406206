/** The loop's decisions as values (seed 003, 4.5): see ./transitions. */
export type { Transition } from './transitions';

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
  | 'acceptance_failed';

export type StopFailureType =
  | 'LLMCallError'
  | 'BudgetExceeded'
  | 'NoProgress'
  | 'RepeatedFailure'
  | 'Cancelled'
  | 'AcceptanceFailed';

/**
 * The `ApplicationFailure.type` a run that stopped for this reason fails with; null for the
 * one successful stop. `max_iterations` is `LLMCallError`, as SPEC section 1 requires
 * (`Agent loop exceeded <n> iterations`), not a budget.
 */
export function failureTypeOf(reason: StopReason): StopFailureType | null {
  switch (reason) {
    case 'final_answer':
      return null;
    case 'max_iterations':
    case 'provider_error':
    case 'empty_reply':
      return 'LLMCallError';
    case 'budget_tokens':
    case 'budget_cost':
    case 'budget_wall_clock':
      return 'BudgetExceeded';
    case 'cancelled':
      return 'Cancelled';
    case 'NO_PROGRESS':
      return 'NoProgress';
    case 'REPEATED_FAILURE':
      return 'RepeatedFailure';
    case 'acceptance_failed':
      return 'AcceptanceFailed';
  }
}
