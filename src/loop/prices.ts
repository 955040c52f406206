import type { Usage } from '../common/messages';

export interface ModelPrice {
  /** USD per million input (prompt) tokens. */
  inputPerMTok: number;
  /** USD per million output (completion) tokens. */
  outputPerMTok: number;
}

/**
 * Public list prices in USD per million tokens, standard tier, no cached-input or batch
 * discount. They go stale and endpoints differ (proxies, Azure, local models): they are a
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

/** What one call cost; an unknown model costs 0 and says so (`priced: false`). */
export function costOf(
  usage: Usage,
  model: string | undefined,
  overrides?: Readonly<Record<string, ModelPrice>>,
): { costUsd: number; priced: boolean } {
  const price = priceOf(model, overrides);
  if (!price) return { costUsd: 0, priced: false };
  return {
    costUsd: (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000,
    priced: true,
  };
}
