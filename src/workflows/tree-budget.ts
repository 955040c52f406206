import { getExternalWorkflowHandle, log, patched, setHandler } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import { TreeBudgetSpent, TreeSpend } from '../common/tree-budget';
import { treeBudgetSpentSignal, treeSpendSignal } from '../common/contract';
import type { BudgetLimits } from '../loop/budget';
import { budgetStopReason } from '../loop/budget';
import { childBudgets, formatTreeUsed, hasTreeBudget, recordMemberSpend, spentTreeBudget, type ChildShare } from '../loop/tree-budget';
import type { Stop } from '../loop/transitions';
import { TREE_BUDGET } from './patches';
import type { RunState } from './run-state';

export interface TreeBudgetContext {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  workflowId: string;
  limits: BudgetLimits;
}

/**
 * One budget for a run and all its subagents (foreground and background, at any depth). Each
 * member tells the root its totals after every model call, by workflow id (so either side may
 * have continued as new); the root counts them in its token and cost checks, and once the tree's
 * budget is spent tells every member it heard from, which then stops at its next check. A new
 * subagent gets at most what is left (or the share its call asks for, if smaller). The overshoot
 * is bounded by one model call per member: the one under way when the budget ran out.
 */
export class TreeBudget {
  constructor(private readonly context: TreeBudgetContext) {
    setHandler(treeSpendSignal, async (raw) => {
      const parsed = TreeSpend.safeParse(raw);
      if (!parsed.success) return log.warn('treeSpend signal ignored: not a spend report');
      const tree = this.tree();
      tree.members = recordMemberSpend(tree.members, parsed.data);
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

  /** After each model call of a member: its totals to the root. A root gone is no reason to fail. */
  async reportSpend(): Promise<void> {
    const { config, state, workflowId } = this.context;
    if (!config.tree) return;
    const { inputTokens, outputTokens, costUsd, iterations } = state.budget;
    const spend: TreeSpend = { memberId: workflowId, inputTokens, outputTokens, costUsd, iterations };
    await getExternalWorkflowHandle(config.tree.rootWorkflowId)
      .signal(treeSpendSignal, spend)
      .catch(() => undefined);
  }

  /**
   * What a new subagent's input gets: the tree's root and its budgets, or why none may start.
   * Runs recorded before trees shared a budget started their subagents with none.
   */
  forChild(share: ChildShare | undefined, nowMs: number): { tree?: { rootWorkflowId: string }; budgets?: { maxTokens?: number; maxCostUsd?: number } } | { refused: string } {
    if (!patched(TREE_BUDGET)) return {};
    const { state, limits } = this.context;
    const spent = state.tree?.spent;
    if (spent) return { refused: `Subagent refused: ${spent.message}` };
    const budgets = childBudgets(state.budget, this.context.config.tree ? {} : (state.tree?.members ?? {}), limits, share, nowMs);
    if (budgets === 'spent') return { refused: `Subagent refused: the agent tree's budget (root ${this.rootId}) has nothing left to give` };
    return { tree: { rootWorkflowId: this.rootId }, ...(Object.keys(budgets).length > 0 ? { budgets } : {}) };
  }

  private spentMessage(spent: { budget: 'tokens' | 'cost'; used: number; limit: number }): string {
    return `Agent tree budget spent (root ${this.rootId}): ${spent.budget === 'cost' ? 'cost' : 'token'} budget used ${formatTreeUsed(spent.budget, spent.used)} of ${formatTreeUsed(spent.budget, spent.limit)} across the run and its subagents`;
  }

  /** At the root: once the tree's budget is spent, every member hears it (a late member when it reports). */
  private async announceIfSpent(reporter?: string): Promise<void> {
    const { state, limits, config } = this.context;
    if (config.tree || !hasTreeBudget(limits)) return;
    const tree = this.tree();
    const already = tree.spent !== undefined;
    if (!already) {
      const spent = spentTreeBudget(state.budget, tree.members, limits, Date.now());
      if (!spent) return;
      tree.spent = { budget: spent.budget, message: this.spentMessage(spent) };
    }
    const { budget, message } = tree.spent as { budget: 'tokens' | 'cost'; message: string };
    const told = already ? (reporter ? [reporter] : []) : Object.keys(tree.members);
    await Promise.all(
      told.map((id) =>
        getExternalWorkflowHandle(id)
          .signal(treeBudgetSpentSignal, { rootWorkflowId: this.rootId, budget, message })
          .catch(() => undefined),
      ),
    );
  }
}
