import Anthropic, { APIConnectionError } from '@anthropic-ai/sdk';
import type { ProviderEndpoint } from '../../../../connection/provider-config';
import { requestOptions, type ModelProvider, type ProviderAdapter, type ProviderReply, type ProviderRequest } from '../../provider';
import { connectionLost, isConnectionLoss } from '../../stream-interrupted';
import { classifyAnthropicError } from './errors';
import { collectStream, replyOf } from './stream';
import { bodyOf, stopReasonOf, usageOf } from './wire-format';

/** Anthropic's Messages API: tool use, streaming, thinking blocks kept with their signatures, the prompt cache. */
export const adapter: ProviderAdapter = {
  name: 'anthropic',
  create: createAnthropicProvider,
};

function createAnthropicProvider(endpoint: ProviderEndpoint, requestTimeoutMs: number): ModelProvider {
  const client = new Anthropic({
    apiKey: endpoint.apiKey ?? 'unused-local-key',
    ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}),
    maxRetries: 0, // Temporal's retry policy does the retrying, durably and visibly.
    timeout: requestTimeoutMs,
  });
  return {
    name: 'anthropic',
    complete: (request) => callOnce(client, request),
    stream: (request, onText) => callStreaming(client, request, onText),
    classify: (err) => classifyAnthropicError(err, endpoint.baseURL),
  };
}

async function callOnce(client: Anthropic, request: ProviderRequest): Promise<ProviderReply> {
  const message = await client.messages.create({ ...bodyOf(request), stream: false }, requestOptions(request));
  return { ...replyOf(message.content), usage: usageOf(message.usage), stopReason: stopReasonOf(message.stop_reason), model: message.model || request.model };
}

async function callStreaming(client: Anthropic, request: ProviderRequest, onText: (text: string) => void): Promise<ProviderReply> {
  const stream = await client.messages.create({ ...bodyOf(request), stream: true }, requestOptions(request));
  let received = 0;
  try {
    const reply = await collectStream(stream, onText, () => {
      received += 1;
    });
    return { ...reply, model: reply.model || request.model };
  } catch (err) {
    // A stream cut short is retried as a new streaming attempt, never re-asked without streaming.
    if (isConnectionLoss(err, (e) => e instanceof APIConnectionError)) throw connectionLost(received, err);
    throw err;
  }
}
