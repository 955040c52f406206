import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIError } from 'openai';

const RETRYABLE_STATUS = new Set([408, 409, 429]);
const MAX_RETRY_AFTER_MS = 5 * 60_000;

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status) || status >= 500;
}

/** `retry-after-ms`, `retry-after` in seconds, or `retry-after` as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.min(Math.max(seconds * 1000, 0), MAX_RETRY_AFTER_MS);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(date - now, 0), MAX_RETRY_AFTER_MS);
}

export function errorTypeName(err: unknown): string {
  if (err instanceof Error) return err.constructor.name === 'Error' ? err.name : err.constructor.name;
  return 'Error';
}

/**
 * Provider errors as Temporal sees them: 408/409/429/5xx and lost connections are retried
 * by the activity's retry policy (honouring `retry-after`), any other 4xx is final.
 */
export function toProviderFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const type = errorTypeName(err);
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof APIError && typeof err.status === 'number') {
    const delay = retryAfterMs(err.headers);
    return ApplicationFailure.create({
      type,
      message,
      nonRetryable: !isRetryableStatus(err.status),
      ...(delay !== undefined ? { nextRetryDelay: delay } : {}),
    });
  }
  return ApplicationFailure.create({ type, message, nonRetryable: !(err instanceof APIConnectionError) });
}

/** The seed's only fallback: the provider says, before any event, that it cannot stream. */
export function isStreamingUnsupported(err: unknown): boolean {
  if (!(err instanceof APIError)) return false;
  if (err.status === 501) return true;
  return err.status === 400 && /stream/i.test(err.message) && /(not|un)\s*supported/i.test(err.message);
}
