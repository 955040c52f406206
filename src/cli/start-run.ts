import type { Client } from '@temporalio/client';
import { WORKFLOW_TYPE, type ConnectionConfig } from '../connection/config';
import { hasLiveWorker } from '../runs/live-pollers';
import { firstLine, newWorkflowId } from '../runs/run-labels';
import { buildRunInput, type RunFlags } from './run-input';
import { refuseOverlap } from './commands/run';
import { checkWorkspace } from './run-setup-check';

export interface StartedRun {
  workflowId: string;
  /** No worker polls the task queue: the run waits until one does. */
  noWorker: boolean;
}

/**
 * Starts a run for a client of another protocol (MCP, ACP) on a server that already runs, after
 * the checks `bareagent run` makes before any run exists: the input as the flags would build it,
 * the workspace there, a directory, not the operator's home. Each failure is a UsageError.
 */
export async function startCheckedRun(client: Client, config: ConnectionConfig, prompt: string, flags: RunFlags & { id?: string }): Promise<StartedRun> {
  const input = buildRunInput(prompt, flags);
  refuseOverlap(input.workspace);
  if (input.workspace) await checkWorkspace(input.workspace);
  const workflowId = flags.id ?? newWorkflowId();
  await client.workflow.start(WORKFLOW_TYPE, { taskQueue: config.taskQueue, workflowId, args: [input], staticSummary: firstLine(prompt) });
  const noWorker = !(await hasLiveWorker(client, config.namespace, config.taskQueue).catch(() => true));
  return { workflowId, noWorker };
}
