import type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import type { HooksConfig } from '../common/hooks';
import type { McpCatalog } from '../common/mcp';
import type { Message } from '../common/messages';
import type { ProjectInstructions } from '../common/project-instructions';
import type { StepRecord } from '../common/wire';
import { createBudgetState, type BudgetState } from '../loop/budget';
import { createFailureStreak, type FailureStreakState } from '../loop/failure-streak';
import { createLoopDetector, type LoopDetectorState } from '../loop/loop-detector';
import type { ReplyState } from '../loop/reply';
import type { JobBoardState } from './job-board';

/** Everything a run knows, as plain JSON: what continue-as-new hands to the next run. */
export interface RunState {
  messages: Message[];
  steps: StepRecord[];
  budget: BudgetState;
  loopDetector: LoopDetectorState;
  failureStreak: FailureStreakState;
  jobs?: JobBoardState;
  followUps: string[];
  /** Runs recorded before replies were per turn count recoveries here, for the whole run. */
  truncationRecoveries: number;
  /** This turn's truncated pieces and empty replies (src/loop/reply.ts); absent in older carried state. */
  reply?: ReplyState;
  acceptanceAttempts: number;
  lastText: string;
  stream?: WorkflowStreamState;
  /** The MCP tools listed at the start of the conversation; carried, so a later run starts no listing. */
  mcp?: McpCatalog;
  /** The workspace's AGENTS.md as read at the start of the conversation; carried like `mcp`. */
  instructions?: ProjectInstructions;
  /** The hooks read at the start of the conversation; carried like `mcp`. */
  hooks?: HooksConfig;
  /** A Stop hook refused an answer already: it may do so once per conversation. */
  stopRefused?: boolean;
  /** Some model call's usage was estimated (the provider reported none): `status` says so. */
  usageEstimated?: boolean;
  /** The next step record gets `usage_estimated: true`: its model call's usage was estimated. */
  usageEstimatePending?: boolean;
  /** Allow rules a human added for the rest of the conversation ("allow always"); carried across continue-as-new. */
  sessionRules?: string[];
  /** How many runs of this conversation came before (continue-as-new count). */
  generation: number;
}

/** Steps carried into the next run: the newest ones; older ones stay in the earlier runs' histories. */
export const CARRIED_STEPS = 500;

export function initialRunState(prompt: string, nowMs: number): RunState {
  return {
    messages: [{ role: 'user', content: prompt }],
    steps: [],
    budget: createBudgetState(nowMs),
    loopDetector: createLoopDetector(),
    failureStreak: createFailureStreak(),
    followUps: [],
    truncationRecoveries: 0,
    acceptanceAttempts: 0,
    lastText: '',
    generation: 0,
  };
}

/** Minimal shape check of carried state: it comes from our own previous run, not from people. */
export function isRunState(value: unknown): value is RunState {
  const state = value as RunState | undefined;
  return !!state && Array.isArray(state.messages) && Array.isArray(state.steps) && typeof state.budget === 'object';
}
