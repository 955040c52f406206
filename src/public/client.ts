import type { Client, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import { cancelTurnSignal, userMessageSignal } from '../common/contract';
import type { AgentRunInput } from '../common/input';
import { WORKFLOW_TYPE } from '../connection/config';

/**
 * `bareagent-temporal/client`: start, follow, answer and await a run from your own client, with
 * the helpers the `bareagent` command uses (docs/embedding.md).
 */
export { followRun, type EventHandler } from '../cli/follow';
export { isPending, sendDecision } from '../runs/decisions';
export { runOutcome, type RunOutcome } from '../runs/run-outcome';
export { cancelTurnSignal, decidePermissionUpdate, eventsQuery, messagesQuery, permissionDecisionSignal, statusQuery, stepsQuery, userMessageSignal } from '../common/contract';
export type { RunEvent } from '../common/events';
export type { AgentRunInput } from '../common/input';
export type { AgentRunResult, CancelTurnInput, PermissionDecisionInput, PermissionDecisionResult, RunStatus } from '../common/wire';

/** The workflow type every run has (DESIGN.md, the public contract). */
export const AGENT_RUN_WORKFLOW_TYPE = WORKFLOW_TYPE;

/** Starts a run of `agentRun` on a task queue where a worker with `BareAgentPlugin` polls. */
export function startRun(
  client: Client,
  input: AgentRunInput,
  options: { taskQueue: string; workflowId: string } & Omit<WorkflowStartOptions, 'args' | 'taskQueue' | 'workflowId'>,
): Promise<WorkflowHandle> {
  return client.workflow.start(WORKFLOW_TYPE, { ...options, args: [input] });
}

/** A follow-up message to a run (the `userMessage` signal): it joins the conversation before the next model call. */
export async function sendMessage(client: Client, workflowId: string, text: string): Promise<void> {
  await client.workflow.getHandle(workflowId).signal(userMessageSignal, { text });
}


/**
 * Stops the turn under way (the `cancelTurn` signal): its model or tool call is cancelled, the run
 * records `turn_cancelled` and waits for the next message. Ignored while the run already waits.
 */
export async function cancelTurn(client: Client, workflowId: string, reason?: string): Promise<void> {
  await client.workflow.getHandle(workflowId).signal(cancelTurnSignal, reason ? { reason } : {});
}
