import type { WorkflowNotFoundError } from '@temporalio/client';
import { connectionFromEnv } from '../connection/config';

/** Temporal's "workflow not found for ID: x", in our words, with where to look. */
export function notFoundMessage(err: WorkflowNotFoundError): string {
  const { namespace } = connectionFromEnv();
  if (!err.workflowId) return err.message;
  return `No run named ${err.workflowId} in namespace ${namespace} (bareagent list shows the runs)`;
}
