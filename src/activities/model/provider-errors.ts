import { ApplicationFailure } from '@temporalio/common';
import type { ProviderError } from './provider';

const RETRYABLE_STATUS = new Set([408, 409, 429]);
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** 408, 409, 429 and 5xx: worth asking again (529 is Anthropic's overload). */
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

/** Words providers use for a conversation over the model's context window. */
const CONTEXT_LENGTH = /context[ _-]?(length|window)|maximum context|prompt is too long|too many (input )?tokens/i;

/** A provider's HTTP error, classified the same way for every provider. */
export function faultOfStatus(status: number, message: string, headers: Headers | undefined) {
  if (isRetryableStatus(status)) {
    const delay = retryAfterMs(headers);
    return { kind: 'retryable' as const, ...(delay !== undefined ? { delayMs: delay } : {}) };
  }
  if (status === 400 && CONTEXT_LENGTH.test(message)) return { kind: 'context_length' as const };
  return { kind: 'request' as const };
}

/**
 * A classified provider error as Temporal sees it: retryable ones are retried by the activity
 * (after the provider's `retry-after` when it gave one), the others are final. A failure the
 * activity raised itself (a stream cut short) passes as it is.
 */
export function failureOf(err: ProviderError | ApplicationFailure): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const { fault } = err;
  const retryable = fault.kind === 'retryable' || (fault.kind === 'stream_refused' && fault.otherwise === 'retryable');
  return ApplicationFailure.create({
    type: err.type,
    message: err.message,
    nonRetryable: !retryable,
    ...(fault.kind === 'retryable' && fault.delayMs !== undefined ? { nextRetryDelay: fault.delayMs } : {}),
  });
}
