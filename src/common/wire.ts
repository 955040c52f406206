import { z } from 'zod';
import type { Usage } from './messages';

/** Argument of the `permissionDecision` signal and the `decidePermission` update. */
export const PermissionDecisionInput = z.strictObject({
  requestId: z.string().min(1),
  decision: z.enum(['allow', 'deny']),
  reason: z.string().optional(),
});
export type PermissionDecisionInput = z.infer<typeof PermissionDecisionInput>;

export const UserMessageInput = z.strictObject({ text: z.string().trim().min(1) });
export type UserMessageInput = z.infer<typeof UserMessageInput>;

export interface PendingPermission {
  /** Set when the question belongs to a subagent: answer that workflow, not the parent. */
  workflowId?: string;
  requestId: string;
  tool: string;
  input: unknown;
  requestedAt: string;
  deadline: string;
}

export type RunPhase =
  | 'starting'
  | 'calling_model'
  | 'running_tool'
  | 'awaiting_approval'
  | 'waiting_for_jobs'
  | 'completed'
  | 'failed';

export interface RunStatus {
  phase: RunPhase;
  iteration: number;
  maxIterations: number;
  pendingPermissions: PendingPermission[];
  backgroundJobs: import('./jobs').JobInfo[];
  usage: Usage;
  model: string | null;
}

export interface StepRecord {
  step_id: number;
  reason: string;
  budget_before: BudgetSnapshot;
  budget_after: BudgetSnapshot;
  evidence_delta: number;
  tools: string[];
  detail?: string;
}

export interface BudgetSnapshot {
  iterationsLeft: number;
  inputTokens: number;
  outputTokens: number;
}

export interface AgentRunResult {
  text: string;
  stopReason: 'final_answer';
  iterations: number;
  usage: Usage;
}

export interface PermissionDecisionResult {
  requestId: string;
  decision: 'allow' | 'deny';
}
