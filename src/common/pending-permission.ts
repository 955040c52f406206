/** A question the run is waiting on a human for: what `status` lists and what answers name. */
export interface PendingPermission {
  /** Set when the question belongs to a subagent: answer that workflow, not the parent. */
  workflowId?: string;
  /**
   * The runtime's own id for this question, never reused in the workflow's whole life (continue-as-new
   * and forks included): the tail of the run's id and a counter. An answer names it.
   */
  requestId: string;
  /** The id of the tool call the question gates, as the model gave it (may repeat). */
  toolCallId: string;
  tool: string;
  input: unknown;
  requestedAt: string;
  deadline: string;
}
