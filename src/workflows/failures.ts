import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import { failureTypeOf, FailureType, type StopDetails } from '../common/failures';

/** Bad input: the run fails at once, never retried, with a message that names the field. */
export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}

/** A stop other than a final answer: a non-retryable failure whose type says why, details say how far. */
export function stopFailure(message: string, details: StopDetails): ApplicationFailure {
  return ApplicationFailure.create({ type: failureTypeOf(details.reason) ?? 'Error', message, nonRetryable: true, details: [details] });
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

export type Attempted<T> = { ok: true; value: T } | { ok: false; type: string; message: string; error: unknown };

/**
 * Runs an activity or a child and turns its failure into a value the loop can act on (an error
 * tool result, a failed job); a cancellation still ends the run.
 */
export async function attempt<T>(work: () => Promise<T>): Promise<Attempted<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { ok: false, ...describeActivityFailure(err), error: err };
  }
}

/**
 * The activity's worker was lost (or went silent) while it ran: its heartbeat or start-to-close
 * timeout, with the last heartbeat's details. A tool's own timeout is a result, never this.
 */
export function workerLost(err: unknown): { lastHeartbeatDetails: unknown } | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof TimeoutFailure)) return undefined;
  return { lastHeartbeatDetails: err.cause.lastHeartbeatDetails };
}
