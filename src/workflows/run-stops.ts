import { ApplicationFailure } from '@temporalio/workflow';
import type { BudgetSnapshot } from '../common/wire';
import { failureTypeOf, type StopReason } from '../loop/stop-reasons';

export interface StopDetails {
  reason: StopReason;
  detail: string;
  budget: BudgetSnapshot;
  stepId: number;
}

/** A stop other than a final answer: a non-retryable failure whose type says why, details say how far. */
export function stopFailure(message: string, details: StopDetails): ApplicationFailure {
  return ApplicationFailure.create({
    type: failureTypeOf(details.reason) ?? 'Error',
    message,
    nonRetryable: true,
    details: [details],
  });
}
