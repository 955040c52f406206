/** A question the run is waiting on a human for: what `status` lists and what answers name. */
export interface PendingPermission {
  /** Set when the question belongs to a subagent: answer that workflow, not the parent. */
  workflowId?: string;
  requestId: string;
  tool: string;
  input: unknown;
  requestedAt: string;
  deadline: string;
}
