import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import OpenAI from 'openai';
import { EVENTS_TOPIC, type RunEvent } from '../../common/events';
import type { LLMResponse } from '../../common/messages';
import type { ModelRequest } from '../../common/model-request';
import type { ProviderConfig } from '../../connection/provider-config';
import { errorTypeName, isStreamingUnsupported, toProviderFailure } from './provider-errors';
import { connectionLost, isConnectionLoss } from './stream-interrupted';
import { collectStream } from './stream-response';
import { TextBatcher } from './text-batcher';
import { settingsBody } from './settings-body';
import { mcpToolDefinitions, toolDefinitions } from './tool-definitions';
import { TranscriptCache } from './transcript-cache';
import { parseToolArguments, toChatMessages } from './wire-format';

const HEARTBEAT_EVERY_MS = 2_000;
/** How often a streaming call publishes its text to the run (the first text goes at once). */
const PUBLISH_EVERY_MS = 200;

export function createCallModel(config: ProviderConfig, transcripts = new TranscriptCache()) {
  const client = new OpenAI({
    apiKey: config.apiKey ?? 'unused-local-key',
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    maxRetries: 0, // Temporal's retry policy does the retrying, durably and visibly.
    timeout: config.requestTimeoutMs,
  });

  return async function callModel(request: ModelRequest): Promise<LLMResponse> {
    const context = Context.current();
    const model = request.model ?? config.defaultModel;
    if (!model) {
      throw ApplicationFailure.nonRetryable(
        'No model configured: pass "model" in the run input or set BAREAGENT_MODEL on the worker',
        'ModelNotConfigured',
      );
    }
    const body = {
      model,
      messages: toChatMessages(await transcripts.resolve(request), request.systemPrompt),
      ...(request.tools.length ? { tools: [...toolDefinitions(request.tools), ...mcpToolDefinitions(request.mcpTools ?? [])] } : {}),
      ...settingsBody(request.settings),
    } as Body;
    const ticker = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      if (!request.stream) return await callOnce(client, body);
      await using streamClient = WorkflowStreamClient.fromWithinActivity({ batchInterval: `${PUBLISH_EVERY_MS} milliseconds` });
      const events = streamClient.topic<RunEvent>(EVENTS_TOPIC);
      const batcher = new TextBatcher((event) => events.publish(event, { forceFlush: true }), PUBLISH_EVERY_MS);
      const publish = (event: RunEvent) => batcher.publish(event);
      const attempt = context.info.attempt;
      if (attempt > 1) publish({ type: 'attempt_restart', step: request.step, attempt });
      try {
        return await callStreaming(client, body, request.step, attempt, publish);
      } finally {
        batcher.flush();
      }
    } catch (err) {
      throw toProviderFailure(err);
    } finally {
      clearInterval(ticker);
    }
  };
}

type Body = Omit<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, 'stream'>;

async function callOnce(client: OpenAI, body: Body): Promise<LLMResponse> {
  const completion = await client.chat.completions.create({ ...body, stream: false });
  const choice = completion.choices[0];
  const message = choice?.message;
  return {
    text: message?.content ?? '',
    toolCalls: (message?.tool_calls ?? [])
      .filter((call) => call.type === 'function')
      .map((call) => parseToolArguments(call.id, call.function.name, call.function.arguments)),
    usage: {
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    },
    finishReason: choice?.finish_reason ?? 'stop',
    model: completion.model || body.model,
    streamed: false,
    ...(completion.usage ? {} : { usageMissing: true as const }),
  };
}

async function callStreaming(
  client: OpenAI,
  body: Body,
  step: number,
  attempt: number,
  publish: (event: RunEvent) => void,
): Promise<LLMResponse> {
  let stream;
  try {
    stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } });
  } catch (err) {
    if (!isStreamingUnsupported(err)) throw err;
    publish({
      type: 'status',
      step,
      message: `Streaming unavailable, falling back to non-stream mode (${errorTypeName(err)}).`,
    });
    return callOnce(client, body);
  }
  let received = 0;
  try {
    // No heartbeat per chunk: the ticker's beat every 2 s is enough for a 10 s heartbeat timeout, and
    // a beat sent at once is a server write that the activity's completion then waits for.
    return await collectStream(stream, step, attempt, publish, () => {
      received += 1;
    });
  } catch (err) {
    // A stream cut short is retried as a new streaming attempt, never re-asked without streaming.
    if (isConnectionLoss(err)) throw connectionLost(received, err);
    throw err;
  }
}
