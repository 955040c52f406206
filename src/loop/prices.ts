import type { Usage } from '../common/messages';

export interface ModelPrice {
  /** USD per million input (prompt) tokens. */
  inputPerMTok: number;
  /** USD per million output (completion) tokens. */
  outputPerMTok: number;
  /** USD per million input tokens read from the prompt cache; default the input price. */
  cacheReadPerMTok?: number;
  /** USD per million input tokens written to the prompt cache; default the input price. */
  cacheWritePerMTok?: number;
}

/**
 * Public list prices in USD per million tokens, standard tier, no batch discount; cached input at
 * the provider's cache prices where it has them (Anthropic: a read 0.1x, a 5-minute write 1.25x). They go stale and endpoints differ (proxies, Azure, local models): they are a
 * default to be overridden by the run's `prices`, not a bill.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  o3: { inputPerMTok: 2, outputPerMTok: 8 },
  'o3-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'claude-opus-4': { inputPerMTok: 15, outputPerMTok: 75, cacheReadPerMTok: 1.5, cacheWritePerMTok: 18.75 },
  'claude-opus-4-5': { inputPerMTok: 5, outputPerMTok: 25, cacheReadPerMTok: 0.5, cacheWritePerMTok: 6.25 },
  'claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
  'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
  'claude-3-7-sonnet': { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
  'claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5, cacheReadPerMTok: 0.1, cacheWritePerMTok: 1.25 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4, cacheReadPerMTok: 0.08, cacheWritePerMTok: 1 },
};

/**
 * The price of a model: an exact name, else the longest known name it extends with `-`
 * (`gpt-4o-2024-08-06` → `gpt-4o`, `gpt-4o-mini-2024-07-18` → `gpt-4o-mini`). Case is
 * ignored and a router's `vendor/` prefix dropped. Overrides win over the defaults.
 */
export function priceOf(
  model: string | undefined,
  overrides: Readonly<Record<string, ModelPrice>> = {},
): ModelPrice | undefined {
  if (!model) return undefined;
  const name = model.trim().toLowerCase().replace(/^.*\//, '');
  const table = new Map<string, ModelPrice>();
  for (const [key, price] of Object.entries(DEFAULT_PRICES)) table.set(key.toLowerCase(), price);
  for (const [key, price] of Object.entries(overrides)) table.set(key.trim().toLowerCase(), price);
  let best: string | undefined;
  for (const key of table.keys()) {
    if ((name === key || name.startsWith(`${key}-`)) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table.get(best);
}

/** Input tokens billed at the uncached rate: all of them but the cache's reads and writes. */
export function uncachedInputTokens(usage: Usage): number {
  return Math.max(0, usage.inputTokens - (usage.cacheReadTokens ?? 0) - (usage.cacheWriteTokens ?? 0));
}

/** What one call cost; an unknown model costs 0 and says so (`priced: false`). Cached input at the cache's prices. */
export function costOf(
  usage: Usage,
  model: string | undefined,
  overrides?: Readonly<Record<string, ModelPrice>>,
): { costUsd: number; priced: boolean } {
  const price = priceOf(model, overrides);
  if (!price) return { costUsd: 0, priced: false };
  return {
    costUsd:
      (uncachedInputTokens(usage) * price.inputPerMTok +
        (usage.cacheReadTokens ?? 0) * (price.cacheReadPerMTok ?? price.inputPerMTok) +
        (usage.cacheWriteTokens ?? 0) * (price.cacheWritePerMTok ?? price.inputPerMTok) +
        usage.outputTokens * price.outputPerMTok) /
      1_000_000,
    priced: true,
  };
}
