import type { PinnedFile } from './pinned-files';
import type { StepCheckpoint } from './checkpoint';
import { z } from 'zod';
import { isValidRule } from './permission-rule-syntax';
import type { PendingPermission } from './pending-permission';
import type { Usage } from './messages';
import type { SandboxKind } from './sandbox';

/**
 * Argument of the `permissionDecision` signal and the `decidePermission` update. `allow_always`
 * allows this call and adds an allow rule for the rest of the run: `rule`, or one derived from the call.
 * `inputDigest` (`inputDigest(tool, input)` of what the approver was shown): the answer holds only if
 * the question's tool and input are exactly that; without it, the request id alone decides.
 */
export const PermissionDecisionInput = z
  .strictObject({
    requestId: z.string().min(1),
    decision: z.enum(['allow', 'deny', 'allow_always']),
    reason: z.string().optional(),
    inputDigest: z.string().regex(/^[0-9a-f]{64}$/, { message: 'must be 64 lowercase hex digits (SHA-256)' }).optional(),
    rule: z.string().refine(isValidRule, { message: 'must be tool, tool(argument) or tool(prefix*)' }).optional(),
  })
  .refine((input) => input.rule === undefined || input.decision === 'allow_always', {
    message: 'a rule goes only with the decision "allow_always"',
    path: ['rule'],
  });
export type PermissionDecisionInput = z.infer<typeof PermissionDecisionInput>;

export const UserMessageInput = z.strictObject({ text: z.string().trim().min(1) });
export type UserMessageInput = z.infer<typeof UserMessageInput>;

/** Stop the turn under way (its model or tool call) and wait for the next message; `reason` goes on the step record. */
export const CancelTurnInput = z.strictObject({ reason: z.string().trim().min(1).max(300).optional() });
export type CancelTurnInput = z.infer<typeof CancelTurnInput>;

export type { PendingPermission } from './pending-permission';

export type RunPhase =
  | 'starting'
  | 'calling_model'
  | 'running_tool'
  | 'awaiting_approval'
  | 'waiting_for_jobs'
  | 'checking_acceptance'
  | 'compacting'
  | 'idle'
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
  /** The provider that served the run's last turn, else the one its input names; null before a turn when it names none (the worker's default). */
  provider?: string | null;
  /** One line: `budget left: 188 iterations · 41,200 tokens · ...`. */
  budgetLeft: string;
  queuedFollowUps: number;
  sandbox: SandboxStatus;
  /** The MCP servers listed at the run's start: how many tools each gave, or why it gave none. */
  mcpServers?: Array<{ name: string; tools: number; pins?: PinnedFile[]; error?: string }>;
  /** The project instruction files (AGENTS.md or CLAUDE.md) in the system prompt; absent when not read. */
  projectInstructions?: { files: string[]; truncated?: boolean; error?: string };
  /** Set on a fork (or resume): the run and step its conversation came from. */
  forkedFrom?: import('./fork').ForkOrigin;
  /** The hooks read at the run's start (`Event(matcher): command`) and settings files that could not be used. */
  hooks?: { commands: string[]; pinned?: PinnedFile[]; errors?: string[] };
  /**
   * The workspace's own settings files (`.bareagent/settings.json`, `.bareagent/mcp.json`) as the
   * top-level run's start read them, with their sha256, and whether their hooks and servers apply.
   */
  workspaceSettings?: import('./workspace-settings').WorkspaceSettingsStatus;
  /** Some of `usage` is estimated: the provider reported none for some calls. */
  usageEstimated?: true;
  /** What the run's model calls cost, in USD, by the run's prices (absent from runs of older workers). */
  costUsd?: number;
  /** Model calls whose model has no price: their cost is not in `costUsd` ("unpriced"). */
  unpricedCalls?: number;
  /**
   * At an agent tree's root with a token or cost budget: the tree's spend (this run and every
   * subagent), what the model calls under way hold reserved, and what settled calls used beyond
   * their reservations in total (the prompt estimates' error): the tree's spend never passes its
   * budget by more than that.
   */
  treeBudget?: { usedTokens: number; usedCostUsd: number; reservedTokens: number; callsUnderWay: number; overrunTokens: number; overrunCostUsd: number };
  /** Allow rules a human added for the rest of the run ("allow always"); absent when none. */
  sessionRules?: string[];
  /** At-most-once calls whose worker was lost while they ran (newest 20): they may have run. */
  mayHaveRun?: import('./may-have-run').MayHaveRun[];
}

/** How the run's commands are confined, as `status` shows it. */
export interface SandboxStatus {
  /** `none`, `full` or `hosts: a, b`. */
  network: string;
  workspace: 'read-write' | 'read-only';
  readOnlyPaths: string[];
  /** What the worker reported for the last command: `bubblewrap`, or `off` when its operator turned the sandbox off. */
  enforcement: SandboxKind | 'no command run yet';
}

/** What each step was for and what it cost (ARCHITECTURE.md, "Step records"). */
export interface StepRecord {
  step_id: number;
  /** The transition that ended the step: next_turn, compacted, waiting_for_jobs, stop:<reason>, ... */
  reason: string;
  budget_before: BudgetSnapshot;
  budget_after: BudgetSnapshot;
  /** How many tool results brought something not seen before (a changed result counts). */
  evidence_delta: number;
  tools: string[];
  detail?: string;
  /** On steps that ran commands: `network none · workspace read-write · bubblewrap`. */
  sandbox?: string;
  /** How many messages the conversation held when the step was recorded: where a fork at this step cuts it. */
  message_count?: number;
  /** The provider reported no usage for this step's model call: its tokens are an estimate. */
  usage_estimated?: true;
  /** Tool calls of this step's reply that the provider left as text and were recovered from it. */
  recovered_tool_calls?: number;
  /** The workspace snapshot taken after this step's tool round (`bareagent diff`, `rewind`), or why none was. */
  checkpoint?: StepCheckpoint | { error: string };
}

/** Budgets left (null: no limit) and what was used, at one moment. */
export interface BudgetSnapshot {
  iterations: number | null;
  tokens: number | null;
  costUsd: number | null;
  wallClockMs: number | null;
  used: { iterations: number; inputTokens: number; outputTokens: number; costUsd: number };
}

export interface AgentRunResult {
  text: string;
  stopReason: 'final_answer';
  iterations: number;
  usage: Usage;
  costUsd: number;
  /** `finalAnswer: "tool"`: the final_answer call's fields. */
  finalAnswer?: { answer: string; changes?: string; checks?: string };
  /** `finalAnswer: "tool"`: text the model wrote outside a call, in order: notes, not the answer. */
  notes?: string[];
}

export interface PermissionDecisionResult {
  requestId: string;
  decision: 'allow' | 'deny' | 'allow_always';
  /** With `allow_always`: the rule now allowed for the rest of the run. */
  rule?: string;
}
