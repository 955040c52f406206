import OpenAI, { APIConnectionError } from 'openai';
import type { ProviderEndpoint } from '../../../../connection/provider-config';
import { requestOptions, type ModelProvider, type ProviderAdapter, type ProviderReply, type ProviderRequest, type ToolSpec } from '../../provider';
import { connectionLost, isConnectionLoss } from '../../stream-interrupted';
import { classifyOpenAIError } from './errors';
import { reasoningOf, toReasoning } from './reasoning';
import { stopReasonOf, usageOf } from './replies';
import { settingsBody } from './settings-body';
import { collectStream } from './stream-response';
import { TokenLimitField } from './token-limit-field';
import { parseToolArguments, toChatMessages } from './wire-format';

type Body = Omit<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, 'stream'>;

/** OpenAI's Chat Completions, and every server that speaks it (vLLM, llama.cpp, Ollama, OpenRouter...). */
export const adapter: ProviderAdapter = {
  name: 'openai',
  create: createOpenAIProvider,
};

function createOpenAIProvider(endpoint: ProviderEndpoint, requestTimeoutMs: number): ModelProvider {
  const client = new OpenAI({
    apiKey: endpoint.apiKey ?? 'unused-local-key',
    ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}),
    maxRetries: 0, // Temporal's retry policy does the retrying, durably and visibly.
    timeout: requestTimeoutMs,
  });
  const tokenLimitField = new TokenLimitField();

  /** Asked once per worker and model: the 400 that refuses max_tokens, then the other name from then on. */
  async function withTokenLimitField<T>(request: ProviderRequest, send: (body: Body) => Promise<T>): Promise<T> {
    const body = tokenLimitField.forModel(request.model, bodyOf(request));
    try {
      return await send(body);
    } catch (err) {
      const renamed = tokenLimitField.afterRefusal(request.model, body, err);
      if (!renamed) throw err;
      return send(renamed);
    }
  }

  return {
    name: 'openai',
    complete: (request) => withTokenLimitField(request, (body) => callOnce(client, body, requestOptions(request))),
    stream: (request, onText) => withTokenLimitField(request, (body) => callStreaming(client, body, requestOptions(request), onText)),
    classify: (err) => classifyOpenAIError(err, endpoint.baseURL),
  };
}

function bodyOf(request: ProviderRequest): Body {
  return {
    model: request.model,
    messages: toChatMessages(request.messages, request.system),
    ...(request.tools.length ? { tools: request.tools.map(chatTool) } : {}),
    ...(request.toolChoice && request.tools.length ? { tool_choice: request.toolChoice } : {}),
    ...settingsBody(request.settings),
  } as Body;
}

function chatTool(tool: ToolSpec): OpenAI.Chat.Completions.ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

async function callOnce(client: OpenAI, body: Body, options: ReturnType<typeof requestOptions>): Promise<ProviderReply> {
  const completion = await client.chat.completions.create({ ...body, stream: false }, options);
  const choice = completion.choices[0];
  const message = choice?.message;
  const reasoning = reasoningOf(message);
  return {
    ...(reasoning ? { reasoning: toReasoning(reasoning) } : {}),
    text: message?.content ?? '',
    toolCalls: (message?.tool_calls ?? [])
      .filter((call) => call.type === 'function')
      .map((call) => parseToolArguments(call.id, call.function.name, call.function.arguments)),
    usage: completion.usage ? usageOf(completion.usage) : { inputTokens: 0, outputTokens: 0 },
    stopReason: stopReasonOf(choice?.finish_reason),
    model: completion.model || body.model,
    ...(completion.usage ? {} : { usageMissing: true as const }),
  };
}

async function callStreaming(client: OpenAI, body: Body, options: ReturnType<typeof requestOptions>, onText: (text: string) => void): Promise<ProviderReply> {
  const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options);
  let received = 0;
  try {
    return await collectStream(stream, onText, () => {
      received += 1;
    });
  } catch (err) {
    // A stream cut short is retried as a new streaming attempt, never re-asked without streaming.
    if (isConnectionLoss(err, (e) => e instanceof APIConnectionError)) throw connectionLost(received, err);
    throw err;
  }
}
