import { condition, setHandler } from '@temporalio/workflow';
import { reserveTreeBudgetUpdate } from '../common/contract';
import { TreeReservationRequest, type TreeGrant } from '../common/tree-budget';
import { describeIssues } from '../common/input';
import type { BudgetLimits } from '../loop/budget';
import { treeBudgetState } from '../loop/tree-budget';
import { decideGrant, type Reservation } from '../loop/tree-reservation';
import type { RunState } from './run-state';

/**
 * How long a reservation waits for others to end before it takes what is left: a member lost
 * without settling (terminated mid-call) must not hold the tree's room for ever. Its tokens stay
 * counted as reserved, so the ceiling holds; only the waiting ends.
 */
const MAX_WAIT = '5 minutes';

export interface TreeLedgerContext {
  state: RunState;
  limits: BudgetLimits;
  /** The tree's budget is spent: every member hears it. */
  spent(budget: 'tokens' | 'cost', used: number, limit: number): Promise<string>;
}

/**
 * The root's ledger of an agent tree: what its members reported spending, plus the reservations
 * of the model calls under way. Members reserve by the `reserveTreeBudget` update; the root's own
 * calls reserve here directly. Everything lives in `state.tree`, so a replay rebuilds the same
 * decisions and continue-as-new carries them.
 */
export class TreeLedger {
  /** Bumped whenever room may have come free: a waiting reservation looks again. */
  private changes = 0;
  private closing = false;

  constructor(private readonly context: TreeLedgerContext) {
    setHandler(reserveTreeBudgetUpdate, (request) => this.grant(request), {
      validator: (raw) => {
        const parsed = TreeReservationRequest.safeParse(raw);
        if (!parsed.success) throw new Error(`reserveTreeBudget: ${describeIssues(parsed.error)}`);
      },
    });
  }

  private tree(): NonNullable<RunState['tree']> {
    return (this.context.state.tree ??= { members: {} });
  }

  /** A report or a release came in: room may have come free. */
  changed(): void {
    this.changes += 1;
  }

  /** The run ends: nothing waits any more, and nothing more is granted. */
  close(): void {
    this.closing = true;
    this.changed();
  }

  /** One call's reservation: granted whole, or after others ended, or what was left; refused once the tree's budget is spent. */
  async grant(request: TreeReservationRequest): Promise<TreeGrant> {
    const tree = this.tree();
    let mayWait = true;
    for (;;) {
      const known = tree.reservations?.[request.reservationId];
      if (known) return granted(known);
      if (tree.spent) return { kind: 'refused', budget: tree.spent.budget, message: tree.spent.message };
      if (this.closing) return { kind: 'refused', budget: 'tokens', message: 'Agent tree budget closed: the tree\'s root is ending' };
      const decision = decideGrant(treeBudgetState(this.context.state.budget, tree.members), tree.reservations ?? {}, this.context.limits, request, mayWait);
      if (decision.kind === 'granted') {
        tree.reservations = { ...tree.reservations, [request.reservationId]: decision.reservation };
        return granted(decision.reservation);
      }
      if (decision.kind === 'refused') {
        const message = await this.context.spent(decision.budget, decision.used, decision.limit);
        return { kind: 'refused', budget: decision.budget, message };
      }
      const seen = this.changes;
      mayWait = await condition(() => this.changes !== seen, MAX_WAIT);
    }
  }

  /** A call ended: its reservation goes, its actual usage is already in the totals it came with. */
  release(reservationId: string, used: { tokens: number; costUsd: number }): void {
    const tree = this.tree();
    const reservation = tree.reservations?.[reservationId];
    if (!reservation) return;
    const { [reservationId]: _released, ...rest } = tree.reservations ?? {};
    tree.reservations = rest;
    // What the bound is made of: a call's prompt can only be estimated (its output is capped by the grant).
    if (used.tokens > reservation.tokens) tree.overrunTokens = (tree.overrunTokens ?? 0) + used.tokens - reservation.tokens;
    if (used.costUsd > reservation.costUsd) tree.overrunCostUsd = (tree.overrunCostUsd ?? 0) + used.costUsd - reservation.costUsd;
    this.changed();
  }
}

function granted(reservation: Reservation): TreeGrant {
  return { kind: 'granted', outputTokens: reservation.outputTokens, tokens: reservation.tokens, costUsd: reservation.costUsd };
}
