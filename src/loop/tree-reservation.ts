import type { BudgetLimits, BudgetState } from './budget';
import type { ModelPrice } from './prices';

/**
 * Budgets by reservation: before each model call a member of an agent tree (the root included)
 * reserves what the call may cost, its prompt's estimate plus the `max_tokens` it is given, from
 * the tree's root. Only a granted call runs; when it ends, its actual usage replaces the
 * reservation. So the tree's spend stays under its budget but for the estimate's error on the
 * prompts of the calls under way when it ran out, never a whole call per member.
 */
export interface Reservation {
  memberId: string;
  tokens: number;
  costUsd: number;
  /** The `max_tokens` granted: asked again (a retry after a lost worker), the same grant is returned. */
  outputTokens: number;
}

/** Outstanding reservations by id (`<member workflow id>#<generation>.<n>`). */
export type Reservations = Record<string, Reservation>;

export interface ReservationRequest {
  reservationId: string;
  memberId: string;
  /** The estimate of what the call sends (src/loop/token-count.ts, anchored on the provider's last count). */
  promptTokens: number;
  /** The most output the call may want: the model's configured `max_tokens`, capped by the member's own share. */
  maxOutputTokens: number;
  /** USD per million tokens of the call's model; absent when it has no price (its cost counts as 0). */
  price?: ModelPrice | undefined;
}

export type GrantDecision =
  | { kind: 'granted'; reservation: Reservation }
  /** Other calls hold reservations that may leave room when they end. */
  | { kind: 'wait' }
  | { kind: 'refused'; budget: 'tokens' | 'cost'; used: number; limit: number };

/** Without a configured `max_tokens`, a budgeted call reserves (and is capped at) this much output. */
export const DEFAULT_OUTPUT_RESERVATION = 4096;
/** A grant smaller than this is no call worth making: the budget counts as spent. */
export const MIN_OUTPUT_TOKENS = 16;

export function reservedTotal(reservations: Reservations, except?: string): { tokens: number; costUsd: number } {
  let tokens = 0;
  let costUsd = 0;
  for (const [id, reservation] of Object.entries(reservations)) {
    if (id === except) continue;
    tokens += reservation.tokens;
    costUsd += reservation.costUsd;
  }
  return { tokens, costUsd };
}

export function reservationCost(promptTokens: number, outputTokens: number, price: ModelPrice | undefined): number {
  return price ? (promptTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1_000_000 : 0;
}

/**
 * The most output a call of `promptTokens` may be given from what is free: `Infinity` when no
 * budget limits it. Negative when even its prompt does not fit.
 */
export function outputRoom(free: { tokens: number | undefined; costUsd: number | undefined }, promptTokens: number, price: ModelPrice | undefined): number {
  let room = Infinity;
  if (free.tokens !== undefined) room = Math.min(room, Math.floor(free.tokens - promptTokens));
  if (free.costUsd !== undefined && price) {
    const promptCost = (promptTokens * price.inputPerMTok) / 1_000_000;
    if (price.outputPerMTok > 0) room = Math.min(room, Math.floor(((free.costUsd - promptCost) * 1_000_000) / price.outputPerMTok));
    else if (promptCost > free.costUsd) room = -1;
  }
  return room;
}

/**
 * The root's answer to a reservation, from the tree's spend (`spent`: the root's own plus what
 * its members reported, each member's report already counting its settled calls) and the
 * reservations outstanding. A call that does not fit whole waits while others hold reservations
 * (they may leave room); with none outstanding (or `mayWait` false) it gets what is left, or is refused.
 */
export function decideGrant(
  spent: BudgetState,
  reservations: Reservations,
  limits: Pick<BudgetLimits, 'maxTokens' | 'maxCostUsd'>,
  request: ReservationRequest,
  mayWait = true,
): GrantDecision {
  const known = reservations[request.reservationId];
  if (known) return { kind: 'granted', reservation: known };
  const held = reservedTotal(reservations);
  const usedTokens = spent.inputTokens + spent.outputTokens;
  const free = {
    tokens: limits.maxTokens === undefined ? undefined : limits.maxTokens - usedTokens - held.tokens,
    costUsd: limits.maxCostUsd === undefined ? undefined : limits.maxCostUsd - spent.costUsd - held.costUsd,
  };
  const room = outputRoom(free, request.promptTokens, request.price);
  const whole = room >= request.maxOutputTokens;
  if (!whole && mayWait && Object.keys(reservations).length > 0) return { kind: 'wait' };
  const outputTokens = Math.min(request.maxOutputTokens, room);
  if (outputTokens < MIN_OUTPUT_TOKENS) {
    const tokensShort = free.tokens !== undefined && Math.floor(free.tokens - request.promptTokens) < MIN_OUTPUT_TOKENS;
    return tokensShort || limits.maxCostUsd === undefined
      ? { kind: 'refused', budget: 'tokens', used: usedTokens, limit: limits.maxTokens ?? 0 }
      : { kind: 'refused', budget: 'cost', used: spent.costUsd, limit: limits.maxCostUsd };
  }
  const tokens = request.promptTokens + outputTokens;
  return { kind: 'granted', reservation: { memberId: request.memberId, tokens, costUsd: reservationCost(request.promptTokens, outputTokens, request.price), outputTokens } };
}
