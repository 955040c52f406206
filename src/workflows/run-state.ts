import { z } from 'zod';
import type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import { describeIssues } from '../common/input';
import type { HooksConfig } from '../common/hooks';
import type { McpCatalog } from '../common/mcp';
import { Message } from '../common/messages';
import type { ProjectInstructions } from '../common/project-instructions';
import type { RunEnvironment } from '../common/run-environment';
import type { RunCheckpoints } from '../common/checkpoint';
import type { ForkOrigin } from '../common/fork';
import type { WorkspaceSettingsStatus } from '../common/workspace-settings';
import type { StepRecord } from '../common/wire';
import type { MayHaveRun } from '../common/may-have-run';
import { TreeSpend } from '../common/tree-budget';
import { BudgetState, createBudgetState } from '../loop/budget';
import { createFailureStreak, FailureStreakState } from '../loop/failure-streak';
import { createLoopDetector, LoopDetectorState } from '../loop/loop-detector';
import type { JobBoardState } from './job-board';

/**
 * The version of the carried state this build writes. A new build that changes the shape adds a
 * version and a migration from the older ones in `parseRunState`: a run pinned to an old build
 * hands its state to whatever build is current at its continue-as-new.
 */
export const RUN_STATE_VERSION = 1;

/**
 * Everything a run knows, as plain JSON: what continue-as-new hands to the next run. Built when a
 * carried state is first read, not when a run starts: most runs never read one, and every run that
 * enters a worker's cache builds its modules again.
 */
function runStateSchema() {
  const StepRecordShape = z.looseObject({ step_id: z.number().int(), reason: z.string() });
  const JobInfo = z.looseObject({ taskId: z.string(), kind: z.enum(['command', 'subagent']), workflowId: z.string(), description: z.string(), startedAt: z.string() });
  const JobNotification = z.looseObject({ taskId: z.string(), status: z.enum(['done', 'failed', 'cancelled', 'timed_out']), summary: z.string() });
  const McpCatalogShape = z.looseObject({
    servers: z.array(z.looseObject({ name: z.string(), source: z.enum(['input', 'workspace']), tools: z.array(z.looseObject({ name: z.string(), server: z.string(), tool: z.string() })) })),
  });
  const ProjectInstructionsShape = z.looseObject({ files: z.array(z.string()), text: z.string() });
  const EnvironmentShape = z.looseObject({ workspace: z.string(), os: z.string(), listing: z.string(), omitted: z.number().int().min(0) });
  const HooksShape = z.looseObject({ hooks: z.array(z.looseObject({ event: z.string(), command: z.string() })), errors: z.array(z.string()).optional() });
  const StreamState = z.looseObject({ log: z.array(z.unknown()), base_offset: z.number().int().min(0) });
  return z.object({
    /** Absent in state carried before it was versioned: that state is version 1. */
    version: z.literal(RUN_STATE_VERSION, { error: `this build reads carried state version ${RUN_STATE_VERSION}` }).default(RUN_STATE_VERSION),
    messages: z.array(Message),
    steps: z.array(StepRecordShape).transform((steps) => steps as unknown as StepRecord[]),
    budget: BudgetState,
    loopDetector: LoopDetectorState,
    failureStreak: FailureStreakState,
    jobs: z
      .object({ running: z.array(JobInfo), notifications: z.array(JobNotification), counter: z.number().int().min(0) })
      .transform((jobs) => jobs as JobBoardState)
      .optional(),
    followUps: z.array(z.string()),
    /** Runs recorded before replies were per turn count recoveries here, for the whole run. */
    truncationRecoveries: z.number().int().min(0),
    /** This turn's truncated pieces and empty replies (src/loop/reply.ts); absent in older carried state. */
    reply: z.object({ recoveries: z.number().int().min(0), answerSoFar: z.string(), emptyReplies: z.number().int().min(0) }).optional(),
    acceptanceAttempts: z.number().int().min(0),
    /** Final answers refused because a file the run changed no longer parses (src/loop/syntax-check.ts); absent in older carried state. */
    syntaxRefusals: z.number().int().min(0).optional(),
    lastText: z.string(),
    stream: StreamState.transform((stream) => stream as unknown as WorkflowStreamState).optional(),
    /** Runs with `finalAnswer: "tool"`: text the model wrote outside a call, kept as notes, not answers. */
    notes: z.array(z.string()).optional(),
    /** Runs with `finalAnswer: "tool"`: the final_answer call that proposed the answer. */
    finalAnswer: z.object({ answer: z.string(), changes: z.string().optional(), checks: z.string().optional() }).optional(),
    /** What the messages' mentions attached, for the status query and the page. */
    attachments: z.array(z.object({ path: z.string(), kind: z.enum(['file', 'listing']), chars: z.number().int().min(0), truncated: z.boolean().optional() })).optional(),
    /** The run's canonical workspace, as its run-start settings read (or a fork's authorisation) resolved and checked it: the only path its activities get from then on; carried. */
    workspacePath: z.string().optional(),
    /** The MCP tools listed at the start of the conversation; carried, so a later run starts no listing. */
    mcp: McpCatalogShape.transform((catalog) => catalog as unknown as McpCatalog).optional(),
    /** The workspace's AGENTS.md as read at the start of the conversation; carried like `mcp`. */
    instructions: ProjectInstructionsShape.transform((read) => read as ProjectInstructions).optional(),
    /** Directories whose AGENTS.md was looked for after the start; carried, so none is read twice. */
    instructionDirs: z.array(z.string()).optional(),
    /** The workspace listing, OS and date read at the start of the conversation for the default system prompt; carried like `mcp`. */
    environment: EnvironmentShape.transform((read) => read as RunEnvironment).optional(),
    /** The hooks read at the start of the conversation; carried like `mcp`. */
    hooks: HooksShape.transform((hooks) => hooks as unknown as HooksConfig).optional(),
    /** The workspace settings snapshot of the conversation's start: files and hashes, and whether they apply. */
    workspaceSettings: z
      .looseObject({ files: z.array(z.looseObject({ path: z.string(), sha256: z.string() })), applied: z.boolean(), decision: z.string() })
      .transform((settings) => settings as unknown as WorkspaceSettingsStatus)
      .optional(),
    /** A Stop hook refused an answer already: it may do so once per conversation. */
    stopRefused: z.boolean().optional(),
    /** Some model call's usage was estimated (the provider reported none): `status` says so. */
    usageEstimated: z.boolean().optional(),
    /** The next step record gets `usage_estimated: true`: its model call's usage was estimated. */
    usageEstimatePending: z.boolean().optional(),
    /** The next step record gets `recovered_tool_calls`: its reply's calls were recovered from text. */
    recoveredToolCallsPending: z.number().int().min(0).optional(),
    /** Allow rules a human added for the rest of the conversation ("allow always"); carried across continue-as-new. */
    sessionRules: z.array(z.string()).optional(),
    /** At-most-once calls lost with their worker (the newest ones): shown in `status`. */
    mayHaveRun: z.array(z.looseObject({ callId: z.string(), tool: z.string(), idempotencyKey: z.string() })).transform((lost) => lost as unknown as MayHaveRun[]).optional(),
    /** At the root of an agent tree: what each member spent; in a member: the root's word that the tree's budget is spent. */
    tree: z
      .object({
        members: z.record(z.string(), TreeSpend),
        spent: z.object({ budget: z.enum(['tokens', 'cost']), message: z.string() }).optional(),
        /** At the root: the model calls under way that hold a reservation, by reservation id (src/loop/tree-reservation.ts). */
        reservations: z.record(z.string(), z.object({ memberId: z.string(), tokens: z.number().min(0), costUsd: z.number().min(0), outputTokens: z.number().int().min(0) })).optional(),
        /** At the root: what settled calls used beyond their reservations, in total (the prompt estimates' error). */
        overrunTokens: z.number().min(0).optional(),
        overrunCostUsd: z.number().min(0).optional(),
      })
      .optional(),
    /** How the worker confined the conversation's last command (`status`'s sandbox line); carried, so continue-as-new keeps it. */
    sandboxKind: z.enum(['bubblewrap', 'off']).optional(),
    /** A background job finished since the last checkpoint: its changes want one even after a read-only round; carried. */
    jobsFinished: z.boolean().optional(),
    /** How many runs of this conversation came before (continue-as-new count). */
    generation: z.number().int().min(0),
    /** Where the conversation's workspace checkpoints are, its run-start and newest ones (or that step 0 is still to take). */
    checkpoints: z
      .object({
        workspace: z.string().optional(),
        store: z.string().optional(),
        start: z.string().optional(),
        last: z.string().optional(),
        deny: z.array(z.string()),
        leftOut: z.array(z.string()).optional(),
        error: z.string().optional(),
        pending: z.literal(true).optional(),
      })
      .transform((checkpoints) => checkpoints as RunCheckpoints)
      .optional(),
    /** A fork's origin, once its conversation was loaded. */
    forkedFrom: z.object({ workflowId: z.string(), runId: z.string(), step: z.number().int() }).transform((origin) => origin as ForkOrigin).optional(),
  });
}

let schema: ReturnType<typeof runStateSchema> | undefined;

export type RunState = z.output<ReturnType<typeof runStateSchema>>;

/** Steps carried into the next run: the newest ones; older ones stay in the earlier runs' histories. */
export const CARRIED_STEPS = 500;

export function initialRunState(prompt: string, nowMs: number): RunState {
  return {
    version: RUN_STATE_VERSION,
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

export type ParsedRunState = { ok: true; state: RunState } | { ok: false; message: string };

/** The state carried by the previous run (input field `resume`), checked against the versions this build reads. */
export function parseRunState(raw: unknown): ParsedRunState {
  const parsed = (schema ??= runStateSchema()).safeParse(raw);
  if (parsed.success) return { ok: true, state: parsed.data };
  const issues = describeIssues(parsed.error)
    .split('; ')
    .map((issue) => (issue.startsWith('(input): ') ? `resume: ${issue.slice(9)}` : `resume.${issue}`))
    .join('; ');
  return { ok: false, message: `Invalid carried state: ${issues}` };
}
