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
export function toProviderFailure(err: unknown, baseURL?: string): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const type = errorTypeName(err);
  const message = withEndpoint(err, baseURL);
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

/** The SDK's endpoint when OPENAI_BASE_URL is unset. */
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * The SDK says only "Connection error." or "401 ...": the message names the endpoint and the
 * variable that chose it, so the person reading a failed run knows what to fix.
 */
function withEndpoint(err: unknown, baseURL: string | undefined): string {
  const message = err instanceof Error ? err.message : String(err);
  const endpoint = baseURL ? `${baseURL} (OPENAI_BASE_URL)` : `${DEFAULT_BASE_URL} (OPENAI_BASE_URL unset)`;
  if (err instanceof APIConnectionError) {
    const cause = (err.cause as { message?: string; cause?: { message?: string } } | undefined);
    const why = cause?.cause?.message ?? cause?.message;
    return `${message.replace(/\.$/, '')}: cannot reach the model endpoint ${endpoint}${why && why !== message ? `: ${why}` : ''}`;
  }
  if (err instanceof APIError && (err.status === 401 || err.status === 403)) return `${message} (the model endpoint ${endpoint} refused OPENAI_API_KEY)`;
  return message;
}
