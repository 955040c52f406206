import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { TreeBudgetSpent, TreeGrant, TreeReservationRequest, TreeSpend } from './tree-budget';
import type { CheckpointsView } from './checkpoint';
import type { RunEvent } from './events';
import type { ChildPermission, JobFinished } from './jobs';
import type { Message } from './messages';
import type {
  CancelTurnInput,
  PermissionDecisionInput,
  PermissionDecisionResult,
  RunStatus,
  StepRecord,
  UserMessageInput,
} from './wire';

/**
 * The run's messages, one definition for both sides: the workflow's handlers and every client
 * (CLI, activities, tests). Clients outside this project call them by these names (README).
 */
export const permissionDecisionSignal = defineSignal<[PermissionDecisionInput]>('permissionDecision');
export const decidePermissionUpdate = defineUpdate<PermissionDecisionResult, [PermissionDecisionInput]>(
  'decidePermission',
);
export const userMessageSignal = defineSignal<[UserMessageInput]>('userMessage');
/** Stops the turn under way, not the run: its model or tool call is cancelled and the run waits for the next `userMessage`. */
export const cancelTurnSignal = defineSignal<[CancelTurnInput?]>('cancelTurn');
export const statusQuery = defineQuery<RunStatus>('status');
export const messagesQuery = defineQuery<Message[]>('messages');
export const stepsQuery = defineQuery<StepRecord[]>('steps');
/** The run's workspace checkpoints, step 0 being the run start (`bareagent diff`, `rewind`). */
export const checkpointsQuery = defineQuery<CheckpointsView>('checkpoints');
/** The run's stream from an offset, also after the run closed: a follower's catch-up path. */
export const eventsQuery = defineQuery<Array<{ offset: number; event: RunEvent }>, [number?]>('events');
/** A finished background job (command or subagent) reports here, by workflow id. */
export const jobFinishedSignal = defineSignal<[JobFinished]>('jobFinished');
/** A subagent's permission question opened or closed, mirrored in the parent's status. */
export const childPermissionSignal = defineSignal<[ChildPermission]>('childPermission');
/** A member of an agent tree tells the tree's root what it has spent (src/common/tree-budget.ts). */
export const treeSpendSignal = defineSignal<[TreeSpend]>('treeSpend');
/** The tree's root tells its members that the tree's budget is spent. */
export const treeBudgetSpentSignal = defineSignal<[TreeBudgetSpent]>('treeBudgetSpent');
/** A member of an agent tree reserves its next model call's cost from the tree's root; the root answers from its ledger. */
export const reserveTreeBudgetUpdate = defineUpdate<TreeGrant, [TreeReservationRequest]>('reserveTreeBudget');
