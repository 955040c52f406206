import { costOf, DEFAULT_PRICES, priceOf } from '../../src/loop/prices';

describe('priceOf', () => {
  test.each<[string, string]>([
    ['gpt-4o', 'gpt-4o'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini', 'gpt-4o-mini'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini'],
    ['gpt-4.1-2025-04-14', 'gpt-4.1'],
    ['o3-mini-2025-01-31', 'o3-mini'],
    ['o3-2025-04-16', 'o3'],
    ['GPT-4o', 'gpt-4o'],
    ['openai/gpt-4o-mini', 'gpt-4o-mini'],
  ])('%s is priced as %s', (model, expected) => {
    expect(priceOf(model)).toBe(DEFAULT_PRICES[expected]);
  });

  test.each(['llama3.1:8b', 'gpt-4', 'gpt-4omni', 'o3mini', '', undefined])('%j has no price', (model) => {
    expect(priceOf(model)).toBeUndefined();
  });

  test('overrides win over the defaults and price models the table does not know', () => {
    const mine = { inputPerMTok: 1, outputPerMTok: 2 };
    expect(priceOf('gpt-4o-2024-08-06', { 'GPT-4o': mine })).toBe(mine);
    expect(priceOf('gpt-4o-mini', { 'gpt-4o': mine })).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf('qwen2.5-coder-32b', { 'qwen2.5-coder': mine })).toBe(mine);
  });
});

describe('costOf', () => {
  test('input and output tokens at their per-million prices', () => {
    // gpt-4o: $2.50 in, $10 out per million.
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 100_000 }, 'gpt-4o-2024-08-06')).toEqual({ costUsd: 3.5, priced: true });
    expect(costOf({ inputTokens: 2000, outputTokens: 500 }, 'gpt-4o-mini').costUsd).toBeCloseTo(0.0006, 10);
  });

  test('an unknown model costs 0 and says it was not priced', () => {
    expect(costOf({ inputTokens: 5000, outputTokens: 5000 }, 'local-model')).toEqual({ costUsd: 0, priced: false });
  });
});
