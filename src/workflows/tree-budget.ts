import { CancellationScope, getExternalWorkflowHandle, log, setHandler } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import { TreeBudgetSpent, TreeSpend, type TreeGrant, type TreeReservationRequest } from '../common/tree-budget';
import { treeBudgetSpentSignal, treeSpendSignal } from '../common/contract';
import type { BudgetLimits } from '../loop/budget';
import { budgetStopReason, priceOf, remaining } from '../loop/budget';
import { childBudgets, formatTreeUsed, hasTreeBudget, recordMemberSpend, spentTreeBudget, type ChildShare } from '../loop/tree-budget';
import { DEFAULT_OUTPUT_RESERVATION, MIN_OUTPUT_TOKENS, outputRoom } from '../loop/tree-reservation';
import type { Stop } from '../loop/transitions';
import { treeReserving } from './activity-proxies';
import type { RunState } from './run-state';
import { TreeLedger } from './tree-ledger';

/** A model call's grant: it runs with `max_tokens` = `outputTokens`; settled when it ends. */
export interface CallGrant {
  reservationId: string;
  outputTokens: number;
  tokens: number;
}

export interface TreeBudgetContext {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  workflowId: string;
  limits: BudgetLimits;
}

/**
 * One budget for a run and all its subagents (foreground and background, at any depth). Before
 * each model call a member reserves what the call may cost from the tree's root (an update the
 * root answers from its ledger, `tree-ledger.ts`); after it, it tells the root its totals and the
 * call's actual usage, by workflow id (so either side may have continued as new), which releases
 * the reservation. Once the tree's budget is spent the root tells every member it heard from. A
 * new subagent gets at most what is left (or the share its call asks for, if smaller). The
 * overshoot is the prompt estimates' error of the calls under way when the budget ran out.
 */
export class TreeBudget {
  /** At the root: the ledger that answers every member's reservations (and the root's own). */
  private readonly ledger: TreeLedger | undefined;
  /** This run's reservations so far: with the generation, each reservation's id (stable across a replay). */
  private reservations = 0;

  constructor(private readonly context: TreeBudgetContext) {
    this.ledger = context.config.tree
      ? undefined
      : new TreeLedger({ state: context.state, limits: context.limits, spent: (budget, used, limit) => this.markSpent({ budget, used, limit }) });
    setHandler(treeSpendSignal, async (raw) => {
      const parsed = TreeSpend.safeParse(raw);
      if (!parsed.success) return log.warn('treeSpend signal ignored: not a spend report');
      const tree = this.tree();
      const { settled, ...spend } = parsed.data;
      tree.members = recordMemberSpend(tree.members, spend);
      if (settled) this.ledger?.release(settled.reservationId, settled);
      else this.ledger?.changed();
      await this.announceIfSpent(parsed.data.memberId);
    });
    setHandler(treeBudgetSpentSignal, (raw) => {
      const parsed = TreeBudgetSpent.safeParse(raw);
      if (parsed.success && parsed.data.rootWorkflowId === this.rootId) this.tree().spent = { budget: parsed.data.budget, message: parsed.data.message };
    });
  }

  /** The tree's root: the top-level run, whose budgets are the tree's. */
  private get rootId(): string {
    return this.context.config.tree?.rootWorkflowId ?? this.context.workflowId;
  }

  private tree(): NonNullable<RunState['tree']> {
    return (this.context.state.tree ??= { members: {} });
  }

  /** The stop the tree calls for at the top of an iteration: its budget spent (at the root: counting every member). */
  async stop(nowMs: number): Promise<Stop | undefined> {
    const { state, limits, config } = this.context;
    if (config.tree) {
      const spent = state.tree?.spent;
      return spent ? { kind: 'stop', reason: budgetStopReason(spent.budget), message: spent.message, detail: `tree ${spent.budget}: spent, as the root said` } : undefined;
    }
    const members = state.tree?.members ?? {};
    if (Object.keys(members).length === 0) return undefined; // no subagent has spent anything: the run's own check decides
    const spent = spentTreeBudget(state.budget, members, limits, nowMs);
    if (!spent) return undefined;
    await this.announceIfSpent();
    const message = this.spentMessage(spent);
    return { kind: 'stop', reason: budgetStopReason(spent.budget), message, detail: `tree ${spent.budget}: used ${spent.used} of ${spent.limit}` };
  }

  /** A run's own token or cost stop, in a tree: its message says whose budget it was. */
  named(stop: Stop): Stop {
    const inTree = this.context.config.tree !== undefined || Object.keys(this.context.state.tree?.members ?? {}).length > 0;
    if (!inTree || (stop.reason !== 'budget_tokens' && stop.reason !== 'budget_cost')) return stop;
    const whose = this.context.config.tree ? `this subagent's share of the agent tree's budget (root ${this.rootId})` : `the agent tree's budget (root ${this.rootId}), counting this run only`;
    return { ...stop, message: `${stop.message ?? ''} (${whose})` };
  }

  /**
   * Before a model call, when the tree (or this run) has a token or cost budget: reserve what the
   * call may cost from the tree's root, its prompt's estimate plus its `max_tokens` (the model's
   * configured limit, else DEFAULT_OUTPUT_RESERVATION, capped by this run's own share). Nothing
   * when no budget applies: the call runs as it always did. A stop when the budget cannot pay for it.
   */
  /** `promptTokens` is asked only when a budget needs it: estimating a prompt builds its tools' JSON schemas. */
  async reserve(ask: { promptTokens: () => number; maxOutputTokens: number | undefined }): Promise<CallGrant | Stop | undefined> {
    const { config, state, limits, workflowId } = this.context;
    if (!hasTreeBudget(limits)) return undefined;
    const call = { promptTokens: ask.promptTokens(), maxOutputTokens: ask.maxOutputTokens };
    const price = priceOf(config.model, config.prices);
    let maxOutputTokens = call.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVATION;
    if (config.tree) {
      // A member's own share (its budgets) caps the call before the root is asked.
      const left = remaining(state.budget, limits, Date.now());
      const room = outputRoom({ tokens: left.tokens ?? undefined, costUsd: left.costUsd ?? undefined }, call.promptTokens, price);
      if (room < MIN_OUTPUT_TOKENS) {
        const byTokens = outputRoom({ tokens: left.tokens ?? undefined, costUsd: undefined }, call.promptTokens, price) < MIN_OUTPUT_TOKENS;
        return this.named(this.ownShareStop(call.promptTokens, byTokens ? 'tokens' : 'cost'));
      }
      maxOutputTokens = Math.min(maxOutputTokens, room);
    }
    this.reservations += 1;
    const request: TreeReservationRequest = {
      reservationId: `${workflowId}#${state.generation}.${this.reservations}`,
      memberId: workflowId,
      promptTokens: Math.ceil(call.promptTokens),
      maxOutputTokens,
      ...(price ? { price } : {}),
    };
    const grant: TreeGrant = this.ledger
      ? await this.ledger.grant(request)
      : await treeReserving.reserveTreeBudget.executeWithOptions({ summary: `reserve ${request.promptTokens} + ${maxOutputTokens} tokens from the agent tree's root` }, [this.rootId, request]);
    if (grant.kind === 'refused') {
      if (config.tree) this.tree().spent ??= { budget: grant.budget, message: grant.message };
      return { kind: 'stop', reason: budgetStopReason(grant.budget), message: grant.message, detail: `${grant.budget}: too little left for a call of about ${request.promptTokens} prompt tokens` };
    }
    return { reservationId: request.reservationId, outputTokens: grant.outputTokens, tokens: grant.tokens };
  }

  /**
   * After each model call (ended or failed): at the root its reservation is released; a member
   * sends the root its totals, with the call's actual usage and the reservation it ends. A root
   * gone is no reason to fail, and a cancelled run still releases what it held.
   */
  async settle(grant: CallGrant | undefined, used: { tokens: number; costUsd: number }): Promise<void> {
    const { config, state, workflowId } = this.context;
    if (!config.tree) {
      if (grant) this.ledger?.release(grant.reservationId, used);
      return;
    }
    const { inputTokens, outputTokens, costUsd, iterations } = state.budget;
    const spend: TreeSpend = {
      memberId: workflowId,
      inputTokens,
      outputTokens,
      costUsd,
      iterations,
      ...(grant ? { settled: { reservationId: grant.reservationId, tokens: used.tokens, costUsd: used.costUsd } } : {}),
    };
    const rootId = config.tree.rootWorkflowId;
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(rootId)
        .signal(treeSpendSignal, spend)
        .catch(() => undefined),
    );
  }

  /** The run ends: at the root, reservations still waiting are refused and nothing more is granted. */
  close(): void {
    this.ledger?.close();
  }

  private ownShareStop(promptTokens: number, budget: 'tokens' | 'cost'): Stop {
    const { state, limits } = this.context;
    const used = budget === 'tokens' ? state.budget.inputTokens + state.budget.outputTokens : state.budget.costUsd;
    const limit = (budget === 'tokens' ? limits.maxTokens : limits.maxCostUsd) ?? 0;
    // "used 0 of 1000" alone read as a fault: the share is spent because one call's reservation (its prompt and some output) does not fit.
    const message = `${ownSpentMessage(budget, used, limit)}: too little left for the next call, whose prompt alone is about ${Math.ceil(promptTokens)} tokens`;
    return { kind: 'stop', reason: budgetStopReason(budget), message, detail: `${budget}: used ${used} of ${limit}, too little left for a call of about ${Math.ceil(promptTokens)} prompt tokens` };
  }

  /**
   * What a new subagent's input gets: the tree's root and its budgets, or why none may start.
   * Runs recorded before trees shared a budget started their subagents with none.
   */
  forChild(share: ChildShare | undefined, nowMs: number): { tree?: { rootWorkflowId: string }; budgets?: { maxTokens?: number; maxCostUsd?: number } } | { refused: string } {
    const { state, limits } = this.context;
    const spent = state.tree?.spent;
    if (spent) return { refused: `Subagent refused: ${spent.message}` };
    const budgets = childBudgets(state.budget, this.context.config.tree ? {} : (state.tree?.members ?? {}), limits, share, nowMs);
    if (budgets === 'spent') return { refused: `Subagent refused: the agent tree's budget (root ${this.rootId}) has nothing left to give` };
    return { tree: { rootWorkflowId: this.rootId }, ...(Object.keys(budgets).length > 0 ? { budgets } : {}) };
  }

  /** A run alone says it as its own budget check does; a tree names the tree. */
  private spentMessage(spent: { budget: 'tokens' | 'cost'; used: number; limit: number }): string {
    if (Object.keys(this.tree().members).length === 0) return ownSpentMessage(spent.budget, spent.used, spent.limit);
    return `Agent tree budget spent (root ${this.rootId}): ${spent.budget === 'cost' ? 'cost' : 'token'} budget used ${formatTreeUsed(spent.budget, spent.used)} of ${formatTreeUsed(spent.budget, spent.limit)} across the run and its subagents`;
  }

  /** At the root: once the tree's budget is spent, every member hears it (a late member when it reports). */
  private async announceIfSpent(reporter?: string): Promise<void> {
    const { state, limits, config } = this.context;
    if (config.tree || !hasTreeBudget(limits)) return;
    const tree = this.tree();
    if (tree.spent) return this.announce(reporter ? [reporter] : []);
    const spent = spentTreeBudget(state.budget, tree.members, limits, Date.now());
    if (spent) await this.markSpent(spent);
  }

  /** At the root: the tree's budget is spent (used up, or too little left for the next call); every member is told. */
  private async markSpent(spent: { budget: 'tokens' | 'cost'; used: number; limit: number }): Promise<string> {
    const tree = this.tree();
    if (!tree.spent) {
      tree.spent = { budget: spent.budget, message: this.spentMessage(spent) };
      await this.announce(Object.keys(tree.members));
    }
    return tree.spent.message;
  }

  private async announce(told: string[]): Promise<void> {
    const { budget, message } = this.tree().spent as { budget: 'tokens' | 'cost'; message: string };
    await Promise.all(
      told.map((id) =>
        getExternalWorkflowHandle(id)
          .signal(treeBudgetSpentSignal, { rootWorkflowId: this.rootId, budget, message })
          .catch(() => undefined),
      ),
    );
  }
}

/** The words of the run's own budget check (src/loop/budget-stop.ts): `tokens budget spent: used 1500 of 1200`. */
function ownSpentMessage(budget: 'tokens' | 'cost', used: number, limit: number): string {
  return `${budget} budget spent: used ${formatTreeUsed(budget, used)} of ${formatTreeUsed(budget, limit)}`;
}
