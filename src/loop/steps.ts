import type { ToolCall } from '../common/messages';
import { toolSummary } from '../common/tool-schemas';
import type { BudgetSnapshot, StepRecord } from '../common/wire';
import { remaining, type BudgetLimits, type BudgetState } from './budget';

export function budgetSnapshot(state: BudgetState, limits: BudgetLimits, nowMs: number): BudgetSnapshot {
  return {
    ...remaining(state, limits, nowMs),
    used: { iterations: state.iterations, inputTokens: state.inputTokens, outputTokens: state.outputTokens, costUsd: state.costUsd },
  };
}

export interface StepInput {
  stepId: number;
  reason: string;
  before: BudgetSnapshot;
  after: BudgetSnapshot;
  evidence: number;
  calls: readonly ToolCall[];
  detail?: string | undefined;
  /** Shown on steps that ran commands: how they were confined. */
  sandbox?: string | undefined;
  messageCount?: number | undefined;
}

/** Each step keeps why it ended and what it cost, not a bare continue flag. */
export function stepRecord(input: StepInput): StepRecord {
  return {
    step_id: input.stepId,
    reason: input.reason,
    budget_before: input.before,
    budget_after: input.after,
    evidence_delta: input.evidence,
    tools: input.calls.map((call) => toolSummary(call.name, call.input, 80)),
    ...(input.detail ? { detail: input.detail } : {}),
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    ...(input.messageCount !== undefined ? { message_count: input.messageCount } : {}),
  };
}
