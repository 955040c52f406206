import { ApplicationFailure } from '@temporalio/common';

/** The `ApplicationFailure.type` of a stream that broke: the model call is retried as a new stream. */
export const STREAM_INTERRUPTED = 'StreamInterrupted';

/**
 * Retryable: the activity's retry policy starts a new streaming attempt, whose `attempt_restart`
 * event tells followers to drop this attempt's partial text. Never a switch to non-streaming.
 */
export function streamInterrupted(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: STREAM_INTERRUPTED, message, nonRetryable: false });
}

export const noStreamResponse = () => streamInterrupted('Streaming provider did not return a response');

export const noFinishReason = (chunks: number) =>
  streamInterrupted(`stream ended without a finish reason after ${chunks} ${plural(chunks)}`);

export const connectionLost = (chunks: number, err: unknown) => {
  const { name, message } = errorLike(err) ?? {};
  const cause = typeof message === 'string' ? `${typeof name === 'string' ? name : 'Error'}: ${message}` : String(err);
  return streamInterrupted(`connection lost mid-stream after ${chunks} ${plural(chunks)}: ${cause}`);
};

// undici reports a socket closed under a streamed body as `TypeError: terminated`, the socket
// error (UND_ERR_SOCKET, ECONNRESET...) only in its `cause`.
const NETWORK_CODES = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNRESET',
  'ECONNABORTED',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);
const NETWORK_MESSAGES = new Set(['terminated', 'fetch failed']);

/**
 * A network failure anywhere in the `cause` chain (not a provider's answer, not an abort by us);
 * `isSdkConnectionError` names the provider SDK's own class for one. Duck-typed: undici's errors
 * come from Node's own realm, where `instanceof TypeError` fails inside a sandbox such as Jest's.
 */
export function isConnectionLoss(err: unknown, isSdkConnectionError: (err: unknown) => boolean = () => false): boolean {
  for (let current = errorLike(err), depth = 0; current && depth < 8; current = errorLike(current.cause), depth++) {
    if (isSdkConnectionError(current)) return true;
    if (typeof current.code === 'string' && NETWORK_CODES.has(current.code)) return true;
    if (current.name === 'TypeError' && typeof current.message === 'string' && NETWORK_MESSAGES.has(current.message)) return true;
  }
  return false;
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

function errorLike(value: unknown): ErrorLike | undefined {
  return typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined;
}

function plural(chunks: number): string {
  return chunks === 1 ? 'chunk' : 'chunks';
}
