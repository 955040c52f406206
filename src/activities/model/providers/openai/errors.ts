import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIError } from 'openai';
import { ProviderError } from '../../provider';
import { errorTypeName, failureOf, faultOfStatus } from '../../provider-errors';

/** The SDK's endpoint when OPENAI_BASE_URL is unset. */
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** llama.cpp's server fails a streamed reply whose tool calls its parser cannot follow; the same request unstreamed works. */
const STREAMED_TOOL_CALL_BUG = /Invalid diff: now finding less tool calls/i;

/**
 * The provider says it cannot stream this request: a 501, a 400 that says streaming is not
 * supported, or llama.cpp's streaming tool-call error (a 500 `Invalid diff`).
 */
export function isStreamingUnsupported(err: unknown): boolean {
  if (!(err instanceof APIError)) return false;
  if (err.status === 501) return true;
  if (STREAMED_TOOL_CALL_BUG.test(err.message)) return true;
  return err.status === 400 && /stream/i.test(err.message) && /(not|un)\s*supported/i.test(err.message);
}

/** Chat Completions errors in BareAgent's terms: 408/409/429/5xx and lost connections retried, any other 4xx final. */
export function classifyOpenAIError(err: unknown, baseURL?: string): ProviderError {
  if (err instanceof ProviderError) return err;
  const type = errorTypeName(err);
  const message = withEndpoint(err, baseURL);
  // A server error mid-stream comes as an APIError without a status.
  const fault = err instanceof APIError && typeof err.status === 'number' ? faultOfStatus(err.status, message, err.headers) : undefined;
  if (isStreamingUnsupported(err)) return new ProviderError({ kind: 'stream_refused', otherwise: fault?.kind === 'request' ? 'request' : 'retryable' }, type, message);
  if (fault) return new ProviderError(fault, type, message);
  return new ProviderError(err instanceof APIConnectionError ? { kind: 'retryable' } : { kind: 'request' }, type, message);
}

/** Any error of a Chat Completions call as the activity's failure. */
export function toProviderFailure(err: unknown, baseURL?: string): ApplicationFailure {
  return failureOf(err instanceof ApplicationFailure ? err : classifyOpenAIError(err, baseURL));
}

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
