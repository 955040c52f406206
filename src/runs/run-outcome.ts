import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure } from '@temporalio/common';
import type { AgentRunResult } from '../common/wire';

export type RunOutcome =
  | { status: 'completed'; result: AgentRunResult }
  | { status: 'failed'; failureType: string; message: string }
  | { status: 'cancelled' | 'terminated'; message: string };

/** Exit codes: 0 completed, 1 failed (the run's failure type says why), 3 cancelled or terminated. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 3 } as const;

export async function runOutcome(client: Client, workflowId: string): Promise<RunOutcome> {
  try {
    const result = (await client.workflow.getHandle(workflowId).result()) as AgentRunResult;
    return { status: 'completed', result };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    if (cause instanceof CancelledFailure) return { status: 'cancelled', message: cause.message };
    if (cause instanceof TerminatedFailure) return { status: 'terminated', message: cause.message };
    if (cause instanceof ApplicationFailure) return { status: 'failed', failureType: cause.type ?? 'Error', message: cause.message };
    return { status: 'failed', failureType: cause?.name ?? 'Error', message: cause?.message ?? err.message };
  }
}

export function exitCodeOf(outcome: RunOutcome): number {
  if (outcome.status === 'completed') return EXIT.ok;
  return outcome.status === 'failed' ? EXIT.failed : EXIT.cancelled;
}
