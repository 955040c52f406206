import type { Client } from '@temporalio/client';
import { decidePermissionUpdate, statusQuery } from '../common/contract';
import type { PermissionDecisionInput, PermissionDecisionResult } from '../common/wire';

/** Still waiting? A follower that starts late must not ask about requests decided long ago. */
export async function isPending(client: Client, workflowId: string, requestId: string): Promise<boolean> {
  const status = await client.workflow.getHandle(workflowId).query(statusQuery);
  return status.pendingPermissions.some((p) => p.requestId === requestId);
}

export function sendDecision(client: Client, workflowId: string, decision: PermissionDecisionInput): Promise<PermissionDecisionResult> {
  return client.workflow.getHandle(workflowId).executeUpdate(decidePermissionUpdate, {
    args: [decision],
  });
}
