import { Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { reserveTreeBudgetUpdate } from '../../common/contract';
import type { TreeGrant, TreeReservationRequest } from '../../common/tree-budget';

/**
 * A member's reservation, as the update it must be: workflow code can signal another workflow
 * but not call an update on it (TypeScript SDK 1.23), so this local activity does it with the
 * worker's client. One round trip: the root's handler answers from its own ledger, and the
 * update id is the reservation's, so a retry after a lost worker joins the same update.
 * A root that ended (or refuses the request) grants nothing: the member stops on the budget.
 */
export async function reserveTreeBudget(rootWorkflowId: string, request: TreeReservationRequest): Promise<TreeGrant> {
  const { client } = Context.current();
  try {
    return await client.workflow.getHandle(rootWorkflowId).executeUpdate(reserveTreeBudgetUpdate, { args: [request], updateId: request.reservationId });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError) {
      return { kind: 'refused', budget: 'tokens', message: `Agent tree budget unavailable (root ${rootWorkflowId}): ${err.message}` };
    }
    throw err;
  }
}
