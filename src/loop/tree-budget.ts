import type { TreeSpend } from '../common/tree-budget';
import { checkBudget, remaining, type BudgetLimits, type BudgetState } from './budget';

/** What the members of a tree (every subagent below the root, at any depth) have spent, by workflow id. */
export type TreeMembers = Record<string, TreeSpend>;

/** A member's totals: the larger of what was known and what it says now (a signal may come late or twice). */
export function recordMemberSpend(members: TreeMembers, spend: TreeSpend): TreeMembers {
  const known = members[spend.memberId];
  if (!known) return { ...members, [spend.memberId]: spend };
  return {
    ...members,
    [spend.memberId]: {
      memberId: spend.memberId,
      inputTokens: Math.max(known.inputTokens, spend.inputTokens),
      outputTokens: Math.max(known.outputTokens, spend.outputTokens),
      costUsd: Math.max(known.costUsd, spend.costUsd),
      iterations: Math.max(known.iterations, spend.iterations),
    },
  };
}

export function membersTotal(members: TreeMembers): Omit<TreeSpend, 'memberId'> {
  const total = { inputTokens: 0, outputTokens: 0, costUsd: 0, iterations: 0 };
  for (const spend of Object.values(members)) {
    total.inputTokens += spend.inputTokens;
    total.outputTokens += spend.outputTokens;
    total.costUsd += spend.costUsd;
    total.iterations += spend.iterations;
  }
  return total;
}

/**
 * The tree's spend against the root's budgets: the root's own plus its members' tokens and cost.
 * Iterations stay the run's own: `maxIterations` is each loop's limit (a subagent has its type's
 * `maxTurns`), and its message (`Agent loop exceeded <n> iterations`) speaks of one loop.
 */
export function treeBudgetState(own: BudgetState, members: TreeMembers): BudgetState {
  const total = membersTotal(members);
  return { ...own, inputTokens: own.inputTokens + total.inputTokens, outputTokens: own.outputTokens + total.outputTokens, costUsd: own.costUsd + total.costUsd };
}

/** Only token and cost budgets are shared by a tree. */
export function hasTreeBudget(limits: BudgetLimits): boolean {
  return limits.maxTokens !== undefined || limits.maxCostUsd !== undefined;
}

export type TreeBudgetName = 'tokens' | 'cost';

/** The tree budget that is spent, if one is: tokens before cost. */
export function spentTreeBudget(own: BudgetState, members: TreeMembers, limits: BudgetLimits, nowMs: number): { budget: TreeBudgetName; used: number; limit: number } | undefined {
  const check = checkBudget(treeBudgetState(own, members), { maxTokens: limits.maxTokens, maxCostUsd: limits.maxCostUsd }, nowMs);
  if (check.kind === 'ok' || (check.budget !== 'tokens' && check.budget !== 'cost')) return undefined;
  return { budget: check.budget, used: check.used, limit: check.limit };
}

export interface ChildShare {
  max_tokens?: number | undefined;
  max_cost_usd?: number | undefined;
}

/**
 * The budgets a new subagent gets: the share asked for in the call, capped by what this run has
 * left (at the root: what the tree has left). `spent` when nothing is left to give.
 */
export function childBudgets(own: BudgetState, members: TreeMembers, limits: BudgetLimits, share: ChildShare | undefined, nowMs: number): { maxTokens?: number; maxCostUsd?: number } | 'spent' {
  const left = remaining(treeBudgetState(own, members), { maxTokens: limits.maxTokens, maxCostUsd: limits.maxCostUsd }, nowMs);
  const tokens = min(left.tokens, share?.max_tokens);
  const cost = min(left.costUsd, share?.max_cost_usd);
  if ((tokens !== undefined && Math.floor(tokens) <= 0) || (cost !== undefined && cost <= 0)) return 'spent';
  return { ...(tokens !== undefined ? { maxTokens: Math.floor(tokens) } : {}), ...(cost !== undefined ? { maxCostUsd: cost } : {}) };
}

function min(left: number | null, asked: number | undefined): number | undefined {
  if (left === null) return asked;
  return asked === undefined ? left : Math.min(left, asked);
}

export function formatTreeUsed(budget: TreeBudgetName, value: number): string {
  return budget === 'cost' ? `$${value.toFixed(4)}` : String(Math.round(value));
}
