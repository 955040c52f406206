import { failureTypeOf, type StopReason } from '../../src/common/failures';
import type { Transition } from '../../src/loop/transitions';

describe('failureTypeOf', () => {
  test.each<[StopReason, string | null]>([
    ['final_answer', null],
    ['max_iterations', 'LLMCallError'],
    ['provider_error', 'LLMCallError'],
    ['budget_tokens', 'BudgetExceeded'],
    ['budget_cost', 'BudgetExceeded'],
    ['budget_wall_clock', 'BudgetExceeded'],
    ['cancelled', 'Cancelled'],
    ['NO_PROGRESS', 'NoProgress'],
    ['REPEATED_FAILURE', 'RepeatedFailure'],
    ['acceptance_failed', 'AcceptanceFailed'],
  ])('%s → %s', (reason, expected) => {
    expect(failureTypeOf(reason)).toBe(expected);
  });

  test('a transition is plain JSON: the value a step record stores', () => {
    const transitions: Transition[] = [
      { kind: 'next_turn' },
      { kind: 'compacted', mode: 'micro', tokensBefore: 60_000, tokensAfter: 20_000 },
      { kind: 'waiting_for_jobs', jobs: ['job-1'] },
      { kind: 'stop', reason: 'NO_PROGRESS' },
    ];
    expect(JSON.parse(JSON.stringify(transitions))).toEqual(transitions);
  });
});
