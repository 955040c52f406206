/**
 * Seed 003, 4.5: an iteration ends with a transition that carries its reason, not a bare
 * continue/stop flag; the reason decides what the next step changes (prompt, budget, state).
 * The step record stores this value.
 */
export type Transition =
  | { kind: 'next_turn' }
  | { kind: 'compacted'; mode: 'micro' | 'full'; tokensBefore: number; tokensAfter: number }
  /** The reply hit the output-token limit: continue with a recovery prompt, at most 3 times. */
  | { kind: 'output_truncated'; recoveries: number }
  | { kind: 'waiting_for_human' }
  | { kind: 'waiting_for_jobs'; jobs: string[] }
  /** A user follow-up arrived while the run worked; taken at a safe boundary (SPEC 3.5). */
  | { kind: 'follow_up_taken' }
  /** A final answer was proposed but the acceptance check failed: the loop continues. */
  | { kind: 'acceptance_failed'; attempts: number }
  | { kind: 'stop'; reason: StopReason };

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
