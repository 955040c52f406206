import type { ModelSettings } from '../../common/input';
import type { ProviderName } from '../../common/providers';
import type { ProviderEndpoint } from '../../connection/provider-config';
import type { LLMResponse, Message } from '../../common/messages';

/** A tool as every provider is told of it: a name, what it does, the JSON schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One model request in BareAgent's terms; each adapter writes it in its provider's wire format. */
export interface ProviderRequest {
  model: string;
  system?: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  /** `required`: the reply must call a tool. */
  toolChoice?: 'required';
  settings?: ModelSettings;
  /** One HTTP request's limit. */
  timeoutMs: number;
  /** Aborts the HTTP request: the activity was cancelled (a cancelled turn or run), so no answer is wanted. */
  signal?: AbortSignal;
}

/** The SDK request options of a provider request: its time limit, and its abort when the activity is cancelled. */
export function requestOptions(request: Pick<ProviderRequest, 'timeoutMs' | 'signal'>): { timeout: number; signal?: AbortSignal } {
  return { timeout: request.timeoutMs, ...(request.signal ? { signal: request.signal } : {}) };
}

/** A reply in BareAgent's terms, before the activity marks how it reached followers. */
export type ProviderReply = Omit<LLMResponse, 'streamed' | 'toolCallsShown' | 'recoveredToolCalls' | 'finishReason' | 'provider' | 'readAhead'> &
  Required<Pick<LLMResponse, 'stopReason'>>;

/**
 * What went wrong, as the activity acts on it: `retryable` (an overload, a rate limit, a 5xx, a
 * lost connection; after `delayMs` when the provider named one), `request` (the request's fault:
 * final), `context_length` (the conversation is over the model's window: final), `stream_refused`
 * (the provider cannot stream this request: asked once again without streaming; a request that
 * was not streamed is then retried or not as `otherwise` says).
 */
export type ProviderFault =
  | { kind: 'retryable'; delayMs?: number }
  | { kind: 'request' }
  | { kind: 'context_length' }
  | { kind: 'stream_refused'; otherwise: 'retryable' | 'request' };

/** An error an adapter classified; `type` names it in the run's failure (the SDK's class name, say). */
export class ProviderError extends Error {
  constructor(
    readonly fault: ProviderFault,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * A model provider's adapter. Everything durable (heartbeats, attempts, timeouts, the payload cap,
 * recovered tool calls, the stream's batching) is the activity's, written once around it.
 */
export interface ModelProvider {
  readonly name: string;
  /** One non-streaming request. */
  complete(request: ProviderRequest): Promise<ProviderReply>;
  /**
   * One streaming request: `onText` gets the reply's text as it arrives. A stream cut short throws
   * a retryable `StreamInterrupted` (src/activities/model/stream-interrupted.ts), never a partial reply.
   */
  stream(request: ProviderRequest, onText: (text: string) => void): Promise<ProviderReply>;
  /** Any error `complete` or `stream` threw, classified. */
  classify(error: unknown): ProviderError;
}

/**
 * What a provider's folder (`src/activities/model/providers/<name>/index.ts`) exports as
 * `adapter`, found by its name in `PROVIDERS` (src/common/providers.ts).
 */
export interface ProviderAdapter {
  readonly name: ProviderName;
  /** One adapter per worker: its client made once, against the endpoint the worker's environment gives. */
  create(endpoint: ProviderEndpoint, requestTimeoutMs: number): ModelProvider;
}
