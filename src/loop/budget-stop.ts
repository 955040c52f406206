import { budgetStopReason, checkBudget, type BudgetLimits, type BudgetState } from './budget';
import type { Stop } from './transitions';

/**
 * The stop a spent budget calls for at the top of an iteration, or nothing. Running out of
 * iterations says so in the words clients match on (`Agent loop exceeded <n> iterations`).
 */
export function budgetStop(state: BudgetState, limits: BudgetLimits, maxIterations: number, nowMs: number): Stop | undefined {
  const check = checkBudget(state, limits, nowMs);
  if (check.kind === 'ok') return undefined;
  const message =
    check.budget === 'iterations'
      ? `Agent loop exceeded ${maxIterations} iterations`
      : `${check.budget.replace('_', '-')} budget spent: used ${formatUsed(check.budget, check.used)} of ${formatUsed(check.budget, check.limit)}`;
  return { kind: 'stop', reason: budgetStopReason(check.budget), message, detail: `${check.budget}: used ${check.used} of ${check.limit}` };
}

function formatUsed(budget: string, value: number): string {
  if (budget === 'cost') return `$${value.toFixed(4)}`;
  if (budget === 'wall_clock') return `${Math.round(value / 1000)}s`;
  return String(value);
}
