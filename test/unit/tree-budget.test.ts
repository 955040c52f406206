import { createBudgetState } from '../../src/loop/budget';
import { childBudgets, recordMemberSpend, spentTreeBudget, treeBudgetState } from '../../src/loop/tree-budget';
import { countProviderFailure, progressOf } from '../../src/activities/model/provider-attempts';
import { ApplicationFailure } from '@temporalio/common';

const spend = (memberId: string, tokens: number) => ({ memberId, inputTokens: tokens, outputTokens: 0, costUsd: 0, iterations: 1 });

test('members report totals: a late or repeated report never lowers what is known', () => {
  let members = recordMemberSpend({}, spend('a', 3000));
  members = recordMemberSpend(members, spend('a', 1000));
  members = recordMemberSpend(members, spend('b', 2000));
  const own = { ...createBudgetState(0), inputTokens: 4000 };
  expect(treeBudgetState(own, members).inputTokens).toBe(9000);
  expect(spentTreeBudget(own, members, { maxTokens: 10_000 }, 0)).toBeUndefined();
  expect(spentTreeBudget(own, recordMemberSpend(members, spend('c', 1000)), { maxTokens: 10_000 }, 0)).toEqual({ budget: 'tokens', used: 10_000, limit: 10_000 });
});

test("a child's share is capped by what the tree has left, and refused when nothing is", () => {
  const own = { ...createBudgetState(0), inputTokens: 6000 };
  expect(childBudgets(own, {}, { maxTokens: 10_000 }, undefined, 0)).toEqual({ maxTokens: 4000 });
  expect(childBudgets(own, {}, { maxTokens: 10_000 }, { max_tokens: 1000 }, 0)).toEqual({ maxTokens: 1000 });
  expect(childBudgets(own, {}, { maxTokens: 10_000 }, { max_tokens: 9000 }, 0)).toEqual({ maxTokens: 4000 });
  expect(childBudgets(own, { a: spend('a', 4000) }, { maxTokens: 10_000 }, undefined, 0)).toBe('spent');
  expect(childBudgets(own, {}, {}, undefined, 0)).toEqual({});
});

test('provider failures are counted across attempts: retryable ones back off, the fourth is final', () => {
  let progress = progressOf(undefined);
  const types: Array<{ nonRetryable: boolean; delay: unknown }> = [];
  for (let i = 0; i < 4; i++) {
    const counted = countProviderFailure(ApplicationFailure.create({ type: 'InternalServerError', message: '503' }), progress);
    progress = counted.progress;
    types.push({ nonRetryable: counted.failure.nonRetryable === true, delay: counted.failure.nextRetryDelay });
  }
  expect(types).toEqual([
    { nonRetryable: false, delay: 500 },
    { nonRetryable: false, delay: 1000 },
    { nonRetryable: false, delay: 2000 },
    { nonRetryable: true, delay: undefined },
  ]);
  const asked = countProviderFailure(ApplicationFailure.create({ type: 'RateLimitError', message: '429', nextRetryDelay: 7000 }), progressOf({ providerFailures: 1 }));
  expect(asked.failure.nextRetryDelay).toBe(7000);
  expect(progressOf({ providerFailures: 'x' })).toEqual({ providerFailures: 0 });
});
