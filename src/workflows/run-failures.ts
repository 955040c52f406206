import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TimeoutFailure } from '@temporalio/workflow';
import { FailureType } from '../common/errors';

export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}

/** The type and message of what made an activity or a child fail, as `<ExceptionType>: <message>` wants them. */
export function describeActivityFailure(err: unknown): { type: string; message: string } {
  const cause = err instanceof ActivityFailure || err instanceof ChildWorkflowFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) return { type: cause.type ?? 'Error', message: cause.message };
  if (cause instanceof TimeoutFailure) {
    return { type: 'TimeoutError', message: 'timed out; the worker running it may have been lost, so it may or may not have run: check before running it again' };
  }
  if (cause instanceof Error) return { type: cause.name, message: cause.message };
  return { type: 'Error', message: String(cause) };
}
