/** The budget flags of `run`, `schedule`, `fork` and `resume`, as typed. */
export interface BudgetFlags {
  maxTokens?: string;
  maxCost?: string;
  maxWallClock?: string;
}

/** `--max-tokens`, `--max-cost`, `--max-wall-clock` as the input's `budgets` (validated with the rest of the input). */
export function budgetsFromFlags(flags: BudgetFlags): Record<string, unknown> {
  return {
    ...(flags.maxTokens !== undefined ? { maxTokens: Number(flags.maxTokens) } : {}),
    ...(flags.maxCost !== undefined ? { maxCostUsd: Number(flags.maxCost) } : {}),
    ...(flags.maxWallClock !== undefined ? { maxWallClock: flags.maxWallClock } : {}),
  };
}
