import { createBudgetState } from '../../src/loop/budget';
import { budgetStop } from '../../src/loop/budget-stop';

test('no stop while every budget has some left', () => {
  expect(budgetStop(createBudgetState(0), { maxIterations: 5 }, 5, 0)).toBeUndefined();
});

test('out of iterations: the documented message, max_iterations, and what was used', () => {
  const state = { ...createBudgetState(0), iterations: 5 };
  expect(budgetStop(state, { maxIterations: 5 }, 5, 0)).toEqual({
    kind: 'stop',
    reason: 'max_iterations',
    message: 'Agent loop exceeded 5 iterations',
    detail: 'iterations: used 5 of 5',
  });
});

test('wall clock spent: the budget named with a hyphen, seconds in the message, milliseconds in the detail', () => {
  const stop = budgetStop(createBudgetState(0), { maxIterations: 5, maxWallClock: 1000 }, 5, 2000);
  expect(stop).toEqual({ kind: 'stop', reason: 'budget_wall_clock', message: 'wall-clock budget spent: used 2s of 1s', detail: 'wall_clock: used 2000 of 1000' });
});
