import { z } from 'zod';
import type { Usage } from '../common/messages';
import type { BudgetSnapshot } from '../common/wire';
import { durationToMs } from '../common/duration';
import { costOf, type ModelPrice } from './prices';
import type { StopReason } from '../common/failures';

export { costOf, DEFAULT_PRICES, priceOf, type ModelPrice } from './prices';

/** The run's limits: absent means unlimited. Matches the input's `budgets` plus `maxIterations`. */
export interface BudgetLimits {
  maxIterations?: number | undefined;
  /** Input plus output tokens over every model call, the summarising ones included. */
  maxTokens?: number | undefined;
  maxCostUsd?: number | undefined;
  /** Milliseconds, or a duration string such as `10m`. */
  maxWallClock?: string | number | undefined;
}

/** What the run has spent, as plain JSON: carried across continue-as-new. */
export const BudgetState = z.object({
  iterations: z.number().int().min(0),
  inputTokens: z.number().min(0),
  outputTokens: z.number().min(0),
  costUsd: z.number().min(0),
  /** Workflow time (`Date.now()` in the workflow is replay-safe) when the run began. */
  startedAtMs: z.number(),
  /** Model calls whose model had no price: their cost is missing from `costUsd`. */
  unpricedCalls: z.number().int().min(0),
});
export type BudgetState = z.infer<typeof BudgetState>;

export type BudgetName = 'iterations' | 'tokens' | 'cost' | 'wall_clock';
export type BudgetCheck = { kind: 'ok' } | { kind: 'exceeded'; budget: BudgetName; used: number; limit: number };

/** Left of each budget; null when it has no limit. Never negative. */
export type BudgetLeft = Omit<BudgetSnapshot, 'used'>;

export function createBudgetState(startedAtMs: number): BudgetState {
  return { iterations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, startedAtMs, unpricedCalls: 0 };
}

/** One loop iteration begins: call after `checkBudget` said ok. */
export function countIteration(state: BudgetState): BudgetState {
  return { ...state, iterations: state.iterations + 1 };
}

/** One model call's usage, priced by the model the provider says answered. */
export function addUsage(
  state: BudgetState,
  usage: Usage,
  model: string | undefined,
  prices?: Readonly<Record<string, ModelPrice>>,
): BudgetState {
  const { costUsd, priced } = costOf(usage, model, prices);
  return {
    ...state,
    inputTokens: state.inputTokens + usage.inputTokens,
    outputTokens: state.outputTokens + usage.outputTokens,
    costUsd: state.costUsd + costUsd,
    unpricedCalls: state.unpricedCalls + (priced ? 0 : 1),
  };
}

/**
 * Whether another iteration may start. A budget is spent when used reaches its limit, so with
 * `maxIterations: 200` the check before iteration 201 fails. The first spent budget in the
 * order iterations, tokens, cost, wall clock is the one reported.
 */
export function checkBudget(state: BudgetState, limits: BudgetLimits, nowMs: number): BudgetCheck {
  for (const [budget, used, limit] of usedAndLimits(state, limits, nowMs)) {
    if (limit !== undefined && used >= limit) return { kind: 'exceeded', budget, used, limit };
  }
  return { kind: 'ok' };
}

export function remaining(state: BudgetState, limits: BudgetLimits, nowMs: number): BudgetLeft {
  const left = Object.fromEntries(
    usedAndLimits(state, limits, nowMs).map(([budget, used, limit]) => [
      budget,
      limit === undefined ? null : Math.max(0, limit - used),
    ]),
  ) as Record<BudgetName, number | null>;
  return { iterations: left.iterations, tokens: left.tokens, costUsd: left.cost, wallClockMs: left.wall_clock };
}

/** The stop reason a spent budget ends the run with. */
export function budgetStopReason(budget: BudgetName): StopReason {
  return budget === 'iterations' ? 'max_iterations' : `budget_${budget}`;
}

/** One line for the UI: `budget left: 188 iterations · 41,200 tokens · $0.83 · 7m 12s`. */
export function formatRemaining(state: BudgetState, limits: BudgetLimits, nowMs: number): string {
  const left = remaining(state, limits, nowMs);
  const parts: string[] = [];
  if (left.iterations !== null) parts.push(plural(left.iterations, 'iteration'));
  if (left.tokens !== null) parts.push(plural(left.tokens, 'token'));
  if (left.costUsd !== null) {
    const unknown = state.unpricedCalls ? ` (cost of ${plural(state.unpricedCalls, 'call')} unknown)` : '';
    parts.push(`${formatUsd(left.costUsd)}${unknown}`);
  }
  if (left.wallClockMs !== null) parts.push(formatDurationMs(left.wallClockMs));
  return `budget left: ${parts.length ? parts.join(' · ') : 'unlimited'}`;
}

export function formatDurationMs(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${s}s`;
  return `${s}s`;
}

export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd > 0 && usd < 0.01 ? 4 : 2)}`;
}

const withCommas = (n: number): string => String(Math.floor(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const plural = (n: number, noun: string): string => `${withCommas(n)} ${noun}${Math.floor(n) === 1 ? '' : 's'}`;

function usedAndLimits(
  state: BudgetState,
  limits: BudgetLimits,
  nowMs: number,
): [BudgetName, number, number | undefined][] {
  return [
    ['iterations', state.iterations, limits.maxIterations],
    ['tokens', state.inputTokens + state.outputTokens, limits.maxTokens],
    ['cost', state.costUsd, limits.maxCostUsd],
    [
      'wall_clock',
      nowMs - state.startedAtMs,
      limits.maxWallClock === undefined ? undefined : durationToMs(limits.maxWallClock),
    ],
  ];
}
