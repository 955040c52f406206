import { createBudgetState } from '../../src/loop/budget';
import { decideGrant, DEFAULT_OUTPUT_RESERVATION, MIN_OUTPUT_TOKENS, outputRoom, type Reservations } from '../../src/loop/tree-reservation';

const spent = (tokens: number, costUsd = 0) => ({ ...createBudgetState(0), inputTokens: tokens, costUsd });
const ask = (id: string, promptTokens: number, maxOutputTokens = 1000) => ({ reservationId: id, memberId: 'm', promptTokens, maxOutputTokens });

test('a call that fits is granted whole: its prompt plus its max_tokens reserved', () => {
  expect(decideGrant(spent(0), {}, { maxTokens: 10_000 }, ask('a', 1500))).toEqual({ kind: 'granted', reservation: { memberId: 'm', tokens: 2500, costUsd: 0, outputTokens: 1000 } });
});

test('a call that does not fit waits while others hold reservations, then gets what is left, then is refused', () => {
  const held: Reservations = { b: { memberId: 'n', tokens: 2500, costUsd: 0, outputTokens: 1000 } };
  expect(decideGrant(spent(6000), held, { maxTokens: 10_000 }, ask('a', 1500))).toEqual({ kind: 'wait' });
  // The other call ended (its usage now in the spend): what is left, as a smaller max_tokens.
  expect(decideGrant(spent(8000), {}, { maxTokens: 10_000 }, ask('a', 1500))).toMatchObject({ kind: 'granted', reservation: { tokens: 2000, outputTokens: 500 } });
  // After waiting too long (mayWait false) the same: what is left, the held reservation still counted.
  expect(decideGrant(spent(5500), held, { maxTokens: 10_000 }, ask('a', 1500), false)).toMatchObject({ kind: 'granted', reservation: { outputTokens: 500 } });
  expect(decideGrant(spent(10_000 - 1500 - MIN_OUTPUT_TOKENS + 1), {}, { maxTokens: 10_000 }, ask('a', 1500))).toEqual({ kind: 'refused', budget: 'tokens', used: 10_000 - 1500 - MIN_OUTPUT_TOKENS + 1, limit: 10_000 });
});

test('a retried request gets the grant it already has, not a second one', () => {
  const held: Reservations = { a: { memberId: 'm', tokens: 2500, costUsd: 0, outputTokens: 1000 } };
  expect(decideGrant(spent(9000), held, { maxTokens: 10_000 }, ask('a', 1500))).toEqual({ kind: 'granted', reservation: held.a });
});

test('cost: the output granted is what the price leaves after the prompt; an unpriced model is not held back', () => {
  const price = { inputPerMTok: 1, outputPerMTok: 4 };
  // $0.004 left: 2,000 prompt tokens cost $0.002, leaving 500 output tokens at $4/M.
  expect(decideGrant(spent(0, 0.016), {}, { maxCostUsd: 0.02 }, { ...ask('a', 2000), price })).toMatchObject({ kind: 'granted', reservation: { outputTokens: 500, costUsd: 0.004 } });
  expect(decideGrant(spent(0, 0.0199), {}, { maxCostUsd: 0.02 }, { ...ask('a', 2000), price })).toMatchObject({ kind: 'refused', budget: 'cost' });
  expect(outputRoom({ tokens: undefined, costUsd: 0.0001 }, 2000, undefined)).toBe(Infinity);
  expect(DEFAULT_OUTPUT_RESERVATION).toBeGreaterThan(MIN_OUTPUT_TOKENS);
});
