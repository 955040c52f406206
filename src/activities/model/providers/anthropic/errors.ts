import { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import { ProviderError } from '../../provider';
import { errorTypeName, faultOfStatus } from '../../provider-errors';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** Error types the API may send inside a stream, after its 200: worth a new attempt. */
const RETRYABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error']);

/**
 * Messages API errors in BareAgent's terms: `overloaded_error` (529), rate limits (429) and other
 * 5xx retried after their `retry-after`, a prompt over the window the context's fault, any other 4xx final.
 */
export function classifyAnthropicError(err: unknown, baseURL?: string): ProviderError {
  if (err instanceof ProviderError) return err;
  const type = errorTypeName(err);
  const message = withEndpoint(err, baseURL);
  if (err instanceof APIConnectionError) return new ProviderError({ kind: 'retryable' }, type, message);
  if (err instanceof APIError) {
    if (typeof err.status === 'number') return new ProviderError(faultOfStatus(err.status, message, err.headers), type, message);
    const streamed = (err.error as { error?: { type?: unknown } } | undefined)?.error?.type;
    if (typeof streamed === 'string' && RETRYABLE_STREAM_ERRORS.has(streamed)) return new ProviderError({ kind: 'retryable' }, streamed, message);
  }
  return new ProviderError({ kind: 'request' }, type, message);
}

/** The SDK's message is the whole JSON error body: the API's own message, after the status, reads better. */
function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const inner = err instanceof APIError ? (err.error as { error?: { message?: unknown } } | undefined)?.error?.message : undefined;
  if (typeof inner !== 'string') return err.message;
  return err instanceof APIError && typeof err.status === 'number' ? `${err.status} ${inner}` : inner;
}

function withEndpoint(err: unknown, baseURL: string | undefined): string {
  const message = messageOf(err);
  const endpoint = baseURL ? `${baseURL} (ANTHROPIC_BASE_URL)` : `${DEFAULT_BASE_URL} (ANTHROPIC_BASE_URL unset)`;
  if (err instanceof APIConnectionError) return `${message.replace(/\.$/, '')}: cannot reach the model endpoint ${endpoint}`;
  if (err instanceof APIError && (err.status === 401 || err.status === 403)) return `${message} (the model endpoint ${endpoint} refused ANTHROPIC_API_KEY)`;
  return message;
}
