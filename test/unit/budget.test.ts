import {
  addUsage,
  BudgetState,
  budgetStopReason,
  checkBudget,
  countIteration,
  createBudgetState,
  formatDurationMs,
  formatRemaining,
  formatUsd,
  remaining,
  type BudgetLimits,
} from '../../src/loop/budget';

const T0 = 1_700_000_000_000;
const start = createBudgetState(T0);
const spent = (iterations: number, inputTokens: number, outputTokens: number, costUsd = 0): BudgetState => ({
  ...start,
  iterations,
  inputTokens,
  outputTokens,
  costUsd,
});

describe('budget state', () => {
  test('starts empty at the given time; countIteration and addUsage return new states', () => {
    expect(start).toEqual({ iterations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, startedAtMs: T0, unpricedCalls: 0 });
    const one = countIteration(start);
    const used = addUsage(one, { inputTokens: 1_000_000, outputTokens: 100_000 }, 'gpt-4o-2024-08-06');
    expect(used).toEqual({ ...one, inputTokens: 1_000_000, outputTokens: 100_000, costUsd: 3.5 });
    expect(start.iterations).toBe(0);
    expect(one.inputTokens).toBe(0);
  });

  test('addUsage leaves iterations alone (a summarising call is not an iteration) and counts unpriced calls', () => {
    const state = addUsage(start, { inputTokens: 10, outputTokens: 5 }, 'my-local-model');
    expect(state).toMatchObject({ iterations: 0, inputTokens: 10, outputTokens: 5, costUsd: 0, unpricedCalls: 1 });
    expect(addUsage(state, { inputTokens: 1, outputTokens: 1 }, undefined).unpricedCalls).toBe(2);
  });

  test('the run\'s price overrides are used', () => {
    const state = addUsage(start, { inputTokens: 1_000_000, outputTokens: 0 }, 'my-local-model', {
      'my-local-model': { inputPerMTok: 0.5, outputPerMTok: 1 },
    });
    expect(state).toMatchObject({ costUsd: 0.5, unpricedCalls: 0 });
  });

  test('plain JSON: a round trip through the schema (continue-as-new) is lossless', () => {
    const state = addUsage(countIteration(start), { inputTokens: 123, outputTokens: 45 }, 'gpt-4o');
    expect(BudgetState.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });
});

describe('checkBudget', () => {
  const limits: BudgetLimits = { maxIterations: 200, maxTokens: 10_000, maxCostUsd: 1, maxWallClock: '10m' };

  test('ok while every budget has room; no limits at all is always ok', () => {
    expect(checkBudget(spent(199, 5000, 4999, 0.99), limits, T0 + 599_999)).toEqual({ kind: 'ok' });
    expect(checkBudget(spent(10_000, 1e9, 1e9, 1e6), {}, T0 + 1e12)).toEqual({ kind: 'ok' });
  });

  test.each<[string, BudgetState, number, object]>([
    ['iterations: the check before iteration 201 of 200', spent(200, 0, 0), T0, { budget: 'iterations', used: 200, limit: 200 }],
    ['tokens: input plus output reach the limit', spent(3, 6000, 4000), T0, { budget: 'tokens', used: 10_000, limit: 10_000 }],
    ['cost', spent(3, 10, 10, 1.2), T0, { budget: 'cost', used: 1.2, limit: 1 }],
    ['wall clock, from a duration string', spent(3, 10, 10), T0 + 600_000, { budget: 'wall_clock', used: 600_000, limit: 600_000 }],
  ])('exceeded: %s', (_what, state, now, expected) => {
    expect(checkBudget(state, limits, now)).toEqual({ kind: 'exceeded', ...expected });
  });

  test('wall clock in milliseconds; the first spent budget in order wins', () => {
    expect(checkBudget(start, { maxWallClock: 5000 }, T0 + 5000)).toMatchObject({ budget: 'wall_clock', limit: 5000 });
    expect(checkBudget(spent(200, 20_000, 0, 5), limits, T0 + 1e9)).toMatchObject({ budget: 'iterations' });
    expect(checkBudget(spent(1, 20_000, 0, 5), limits, T0 + 1e9)).toMatchObject({ budget: 'tokens' });
  });

  test('each spent budget maps to its stop reason', () => {
    expect(budgetStopReason('iterations')).toBe('max_iterations');
    expect(budgetStopReason('tokens')).toBe('budget_tokens');
    expect(budgetStopReason('cost')).toBe('budget_cost');
    expect(budgetStopReason('wall_clock')).toBe('budget_wall_clock');
  });
});

describe('remaining and formatRemaining', () => {
  const limits: BudgetLimits = { maxIterations: 200, maxTokens: 50_000, maxCostUsd: 1, maxWallClock: '10m' };
  const state = spent(12, 8000, 800, 0.17);
  const now = T0 + 168_000;

  test('left of every limited budget; null for the unlimited ones; never negative', () => {
    expect(remaining(state, limits, now)).toEqual({ iterations: 188, tokens: 41_200, costUsd: expect.closeTo(0.83, 10), wallClockMs: 432_000 });
    expect(remaining(state, { maxIterations: 5 }, now)).toEqual({ iterations: 0, tokens: null, costUsd: null, wallClockMs: null });
  });

  test('one line for the UI', () => {
    expect(formatRemaining(state, limits, now)).toBe('budget left: 188 iterations · 41,200 tokens · $0.83 · 7m 12s');
    expect(formatRemaining(state, { maxIterations: 13 }, now)).toBe('budget left: 1 iteration');
    expect(formatRemaining(state, {}, now)).toBe('budget left: unlimited');
    expect(formatRemaining({ ...state, unpricedCalls: 2 }, { maxCostUsd: 1 }, now)).toBe(
      'budget left: $0.83 (cost of 2 calls unknown)',
    );
  });

  test.each<[number, string]>([
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m 0s'],
    [432_000, '7m 12s'],
    [3_600_000 * 2 + 60_000 * 5 + 30_000, '2h 5m'],
  ])('formatDurationMs(%d) = %s', (ms, expected) => {
    expect(formatDurationMs(ms)).toBe(expected);
  });

  test.each<[number, string]>([
    [0, '$0.00'],
    [0.004, '$0.0040'],
    [0.83, '$0.83'],
    [12.5, '$12.50'],
  ])('formatUsd(%d) = %s', (usd, expected) => {
    expect(formatUsd(usd)).toBe(expected);
  });
});
