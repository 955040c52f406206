import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { RunEvent } from '../common/events';
import type { ChildPermission, JobFinished } from '../common/jobs';
import type { Message } from '../common/messages';
import type {
  PermissionDecisionInput,
  PermissionDecisionResult,
  RunStatus,
  StepRecord,
  UserMessageInput,
} from '../common/wire';

/** The names of DESIGN.md section 2: clients outside this project rely on them. */
export const permissionDecisionSignal = defineSignal<[PermissionDecisionInput]>('permissionDecision');
export const decidePermissionUpdate = defineUpdate<PermissionDecisionResult, [PermissionDecisionInput]>(
  'decidePermission',
);
export const userMessageSignal = defineSignal<[UserMessageInput]>('userMessage');
export const statusQuery = defineQuery<RunStatus>('status');
export const messagesQuery = defineQuery<Message[]>('messages');
export const stepsQuery = defineQuery<StepRecord[]>('steps');
/** The run's stream from an offset, also after the run closed: a follower's catch-up path. */
export const eventsQuery = defineQuery<Array<{ offset: number; event: RunEvent }>, [number?]>('events');
/** A finished background job (command or subagent) reports here, by workflow id. */
export const jobFinishedSignal = defineSignal<[JobFinished]>('jobFinished');
/** A subagent's permission question opened or closed, mirrored in the parent's status. */
export const childPermissionSignal = defineSignal<[ChildPermission]>('childPermission');
