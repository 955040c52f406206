import { ApplicationFailure } from '@temporalio/common';

/**
 * How many times a model call may fail at the provider before it gives up. Worker losses (a
 * heartbeat timeout, a killed or drained worker) are not among them: the activity's retry policy
 * has no attempt limit, and the call counts its own provider failures in its heartbeat details,
 * which the server hands to the next attempt (and which a failure report carries with it).
 */
export const MAX_PROVIDER_ATTEMPTS = 4;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** What a model call's attempts tell each other through the heartbeat details. */
export interface CallProgress {
  providerFailures: number;
}

/** The progress an attempt starts from: the last heartbeat of the attempts before it. */
export function progressOf(details: unknown): CallProgress {
  const n = (details as { providerFailures?: unknown } | null | undefined)?.providerFailures;
  return { providerFailures: typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0 };
}

/**
 * One more provider failure: retryable ones get their own backoff (500 ms, 1 s, 2 s: the policy's
 * interval is for lost workers) unless the provider asked for a delay (`retry-after`), and the
 * one that reaches MAX_PROVIDER_ATTEMPTS becomes final.
 */
export function countProviderFailure(failure: ApplicationFailure, before: CallProgress): { failure: ApplicationFailure; progress: CallProgress } {
  const progress = { providerFailures: before.providerFailures + 1 };
  if (failure.nonRetryable) return { failure, progress };
  const final = progress.providerFailures >= MAX_PROVIDER_ATTEMPTS;
  const delay = failure.nextRetryDelay ?? Math.min(FIRST_BACKOFF_MS * 2 ** before.providerFailures, MAX_BACKOFF_MS);
  return {
    failure: ApplicationFailure.create({
      type: failure.type ?? 'Error',
      message: failure.message,
      nonRetryable: final,
      ...(final ? {} : { nextRetryDelay: delay }),
      ...(failure.details?.length ? { details: [...failure.details] } : {}),
    }),
    progress,
  };
}
