import type { SandboxKind, SandboxRequest } from './sandbox';
import type { PendingPermission } from './pending-permission';

/** A background job (a `backgroundJob` child, or a subagent run in the background) as the parent tracks it. */
export interface JobInfo {
  taskId: string;
  kind: 'command' | 'subagent';
  workflowId: string;
  description: string;
  startedAt: string;
}

export interface BackgroundJobInput {
  parentWorkflowId: string;
  taskId: string;
  command: string;
  timeoutSeconds: number;
  workspace?: string;
  /** The worker that holds the workspace runs the command. */
  toolTaskQueue?: string;
  /** How the command is confined; the default sandbox (no network, writable workspace) when absent. */
  sandbox?: SandboxRequest;
}

/** Sent by a finished job to its parent, by workflow id so it reaches the run after continue-as-new. */
export interface JobFinished {
  taskId: string;
  status: 'done' | 'failed' | 'cancelled';
  summary: string;
}

export interface CommandResult {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  /** How the command was confined. */
  sandbox?: SandboxKind;
}

/** A subagent's permission question, mirrored in its parent's `status` so a human sees it. */
export type ChildPermission = Required<Pick<PendingPermission, 'workflowId'>> & Omit<PendingPermission, 'workflowId'> & { open: boolean };
