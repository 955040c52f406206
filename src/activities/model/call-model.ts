import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import OpenAI from 'openai';
import { EVENTS_TOPIC, type RunEvent } from '../../common/events';
import type { LLMResponse } from '../../common/messages';
import type { ModelRequest } from '../../common/model-request';
import type { ProviderConfig } from '../../connection/provider-config';
import type { UserToolDescriptor } from '../../common/tool-descriptors';
import { countProviderFailure, progressOf } from './provider-attempts';
import { errorTypeName, isStreamingUnsupported, toProviderFailure } from './provider-errors';
import { connectionLost, isConnectionLoss } from './stream-interrupted';
import { collectStream } from './stream-response';
import { TextBatcher } from './text-batcher';
import { settingsBody } from './settings-body';
import { mcpToolDefinitions, toolDefinitions } from './tool-definitions';
import { TranscriptCache } from './transcript-cache';
import { recoverToolCalls } from './recover-tool-calls';
import { reasoningOf } from './reasoning';
import { TokenLimitField } from './token-limit-field';
import { parseToolArguments, toChatMessages } from './wire-format';

const HEARTBEAT_EVERY_MS = 2_000;
/** How often a streaming call publishes its text to the run: the first text at once, then every 200 ms, every second once the reply has run two seconds. */
const PUBLISH_EVERY_MS = 200;
const PUBLISH_PACE = { intervalMs: PUBLISH_EVERY_MS, laterAfterMs: 2_000, laterIntervalMs: 1_000 };
/** How much of the activity's start-to-close timeout a provider request leaves unused. */
const START_TO_CLOSE_MARGIN_MS = 15_000;

export function createCallModel(config: ProviderConfig, transcripts = new TranscriptCache(), userTools: ReadonlyMap<string, UserToolDescriptor> = new Map()) {
  const tokenLimitField = new TokenLimitField();
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
    const asked = {
      model,
      messages: toChatMessages(await transcripts.resolve(request), request.systemPrompt),
      ...(request.tools.length ? { tools: [...toolDefinitions(request.tools, userTools), ...mcpToolDefinitions(request.mcpTools ?? [])] } : {}),
      ...(request.toolChoice && request.tools.length ? { tool_choice: request.toolChoice } : {}),
      ...settingsBody(request.settings),
    } as Body;
    // Every heartbeat carries the provider failures of this call's attempts so far: the next
    // attempt reads them back, whether this one fails at the provider or its worker is lost.
    // A first attempt has none to carry, so its first beat waits for the ticker: a beat sent at
    // once is a server write that a quick call's completion then waits for.
    let progress = progressOf(context.info.heartbeatDetails);
    const heartbeat = () => context.heartbeat(progress);
    if (context.info.attempt > 1) heartbeat();
    const ticker = setInterval(heartbeat, HEARTBEAT_EVERY_MS);
    // A provider that never answers fails as a provider timeout (counted) before the activity's
    // start-to-close timeout, which is left for a lost worker (not counted).
    const requestTimeoutMs = Math.max(1_000, Math.min(config.requestTimeoutMs, context.info.startToCloseTimeoutMs - START_TO_CLOSE_MARGIN_MS));
    const known = new Set([...request.tools, ...(request.mcpTools ?? []).map((tool) => tool.name)]);
    const send = async (body: Body): Promise<LLMResponse> => {
      if (!request.stream) return withRecoveredCalls(await callOnce(client, body, requestTimeoutMs), known);
      await using streamClient = WorkflowStreamClient.fromWithinActivity({ batchInterval: `${PUBLISH_EVERY_MS} milliseconds` });
      const events = streamClient.topic<RunEvent>(EVENTS_TOPIC);
      const batcher = new TextBatcher((event) => events.publish(event, { forceFlush: true }), PUBLISH_PACE);
      const publish = (event: RunEvent) => batcher.publish(event);
      const attempt = context.info.attempt;
      if (attempt > 1) publish({ type: 'attempt_restart', step: request.step, attempt });
      try {
        return withRecoveredCalls(await callStreaming(client, body, requestTimeoutMs, request.step, attempt, publish), known);
      } finally {
        batcher.flush();
      }
    };
    try {
      const body = tokenLimitField.forModel(model, asked);
      try {
        return withinPayloadLimit(await send(body));
      } catch (err) {
        // Asked once per worker and model: the 400 that refuses max_tokens, then the other name from then on.
        const renamed = tokenLimitField.afterRefusal(model, body, err);
        if (!renamed) throw err;
        return withinPayloadLimit(await send(renamed));
      }
    } catch (err) {
      const counted = countProviderFailure(toProviderFailure(err, config.baseURL), progress);
      progress = counted.progress;
      // Flushed with the failure report, so the next attempt starts from this count.
      heartbeat();
      throw counted.failure;
    } finally {
      clearInterval(ticker);
    }
  };
}

/**
 * Temporal refuses an activity result over its 2 MB payload limit, and a refused completion is
 * retried like a lost worker, which has no attempt limit: a reply that large would be asked for
 * again for ever. It fails at once instead, as the provider error it is (the model said too much).
 */
const MAX_RESULT_BYTES = 1_900_000;

function withinPayloadLimit(response: LLMResponse): LLMResponse {
  const bytes = Buffer.byteLength(JSON.stringify(response));
  if (bytes <= MAX_RESULT_BYTES) return response;
  throw ApplicationFailure.nonRetryable(`the model's reply is ${bytes} bytes, over the ${MAX_RESULT_BYTES} a Temporal payload may carry`, 'ReplyTooLarge');
}

/** A reply with no tool calls whose text holds some (src/activities/model/recover-tool-calls.ts): the calls, marked. */
function withRecoveredCalls(response: LLMResponse, known: ReadonlySet<string>): LLMResponse {
  if (response.toolCalls.length > 0) return response;
  const recovered = recoverToolCalls(response.text, known);
  if (!recovered) return response;
  return { ...response, text: recovered.text, toolCalls: recovered.calls, recoveredToolCalls: recovered.calls.length, finishReason: 'tool_calls' };
}

type Body = Omit<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, 'stream'>;

async function callOnce(client: OpenAI, body: Body, timeout: number): Promise<LLMResponse> {
  const completion = await client.chat.completions.create({ ...body, stream: false }, { timeout });
  const choice = completion.choices[0];
  const message = choice?.message;
  const reasoning = reasoningOf(message);
  return {
    ...(reasoning ? { reasoning } : {}),
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
  timeout: number,
  step: number,
  attempt: number,
  publish: (event: RunEvent) => void,
): Promise<LLMResponse> {
  let stream;
  try {
    stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { timeout });
  } catch (err) {
    if (!isStreamingUnsupported(err)) throw err;
    publish({
      type: 'status',
      step,
      message: `Streaming unavailable, falling back to non-stream mode (${errorTypeName(err)}).`,
    });
    return callOnce(client, body, timeout);
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
