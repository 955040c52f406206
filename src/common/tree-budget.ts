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
  /** The call this report ends: its reservation is released, its actual usage counted in the totals. */
  settled: z.strictObject({ reservationId: z.string().min(1), tokens: z.number().min(0), costUsd: z.number().min(0) }).optional(),
});
export type TreeSpend = z.infer<typeof TreeSpend>;

/** The root to every member it heard from, once the tree's budget is spent: stop at the next check. */
export const TreeBudgetSpent = z.strictObject({ rootWorkflowId: z.string().min(1), budget: z.enum(['tokens', 'cost']), message: z.string().min(1) });
export type TreeBudgetSpent = z.infer<typeof TreeBudgetSpent>;

const Price = z.strictObject({ inputPerMTok: z.number().min(0), outputPerMTok: z.number().min(0) });

/**
 * A member's reservation before a model call (update `reserveTreeBudget` to the root): the
 * prompt's estimate and the most output it may want. The id is the member's own and stable across
 * retries (`<member workflow id>#<generation>.<n>`), so a retried request gets the same grant.
 */
export const TreeReservationRequest = z.strictObject({
  reservationId: z.string().min(1),
  memberId: z.string().min(1),
  promptTokens: z.number().int().min(0),
  maxOutputTokens: z.number().int().positive(),
  price: Price.optional(),
});
export type TreeReservationRequest = z.infer<typeof TreeReservationRequest>;

/** The root's answer: the call may run with `max_tokens` = `outputTokens`, or the tree's budget is spent. */
export type TreeGrant =
  | { kind: 'granted'; outputTokens: number; tokens: number; costUsd: number }
  | { kind: 'refused'; budget: 'tokens' | 'cost'; message: string };
