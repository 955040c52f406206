import { z } from 'zod';

/**
 * What one member of an agent tree (a subagent, a background subagent, at any depth) has spent
 * so far, in total: sent to the tree's root after each of its model calls. Totals, not deltas, so
 * a repeated or reordered signal changes nothing and a member's continue-as-new carries them.
 */
export const TreeSpend = z.strictObject({
  memberId: z.string().min(1),
  inputTokens: z.number().min(0),
  outputTokens: z.number().min(0),
  costUsd: z.number().min(0),
  iterations: z.number().int().min(0),
});
export type TreeSpend = z.infer<typeof TreeSpend>;

/** The root to every member it heard from, once the tree's budget is spent: stop at the next check. */
export const TreeBudgetSpent = z.strictObject({ rootWorkflowId: z.string().min(1), budget: z.enum(['tokens', 'cost']), message: z.string().min(1) });
export type TreeBudgetSpent = z.infer<typeof TreeBudgetSpent>;
