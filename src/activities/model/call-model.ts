import { Context } from '@temporalio/activity';
import { withRunContext } from './run-context';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { EVENTS_TOPIC, type RunEvent } from '../../common/events';
import type { LLMResponse } from '../../common/messages';
import type { ModelRequest } from '../../common/model-request';
import type { ProviderConfig } from '../../connection/provider-config';
import type { UserToolDescriptor } from '../../common/tool-descriptors';
import { type ModelProvider, type ProviderReply, type ProviderRequest } from './provider';
import { countProviderFailure, progressOf } from './provider-attempts';
import { failureOf } from './provider-errors';
import { Providers } from './providers';
import { TextBatcher } from './text-batcher';
import { mcpToolDefinitions, toolDefinitions } from './tool-definitions';
import { TRANSCRIPT_UNAVAILABLE, TranscriptCache } from './transcript-cache';
import { recoverToolCalls } from './recover-tool-calls';
import { readAhead, type ReadTools } from './read-ahead';

/** What a model call works with besides the provider's settings; each has a default of its own. */
export interface CallModelParts {
  transcripts?: TranscriptCache;
  /** The worker's own tools (`defineTool`), whose schemas the model is offered. */
  userTools?: ReadonlyMap<string, UserToolDescriptor>;
  providers?: Providers;
  /** The worker's read-only tools, for the calls a reply may have read ahead (src/activities/model/read-ahead.ts). */
  readTools?: ReadTools;
}

const HEARTBEAT_EVERY_MS = 2_000;
/** How often a streaming call publishes its text to the run: the first text at once, then every 200 ms, every second once the reply has run two seconds. */
const PUBLISH_EVERY_MS = 200;
const PUBLISH_PACE = { intervalMs: PUBLISH_EVERY_MS, laterAfterMs: 2_000, laterIntervalMs: 1_000 };
/** How much of the activity's start-to-close timeout a provider request leaves unused. */
const START_TO_CLOSE_MARGIN_MS = 15_000;

/**
 * The `callModel` activity: the durable part of a model call, the same for every provider, around
 * the adapter the run names (src/activities/model/providers/).
 */
export function createCallModel(config: ProviderConfig, parts: CallModelParts = {}) {
  const { transcripts = new TranscriptCache(), userTools = new Map(), providers = new Providers(config), readTools = {} } = parts;
  return async function callModel(request: ModelRequest): Promise<LLMResponse> {
    const context = Context.current();
    const model = request.model ?? config.defaultModel;
    if (!model) {
      throw ApplicationFailure.nonRetryable(
        'No model configured: pass "model" in the run input or set BAREAGENT_MODEL on the worker',
        'ModelNotConfigured',
      );
    }
    const provider = providers.get(request.provider);
    // Every heartbeat carries the provider failures of this call's attempts so far: the next
    // attempt reads them back, whether this one fails at the provider or its worker is lost.
    // A first attempt has none to carry, so its first beat waits for the ticker: a beat sent at
    // once is a server write that a quick call's completion then waits for.
    let progress = progressOf(context.info.heartbeatDetails);
    const heartbeat = () => context.heartbeat(progress);
    if (context.info.attempt > 1) heartbeat();
    const ticker = setInterval(heartbeat, HEARTBEAT_EVERY_MS);
    try {
      const asked: ProviderRequest = {
        model,
        ...(request.systemPrompt ? { system: request.systemPrompt } : {}),
        messages: withRunContext(await transcripts.resolve(request), request.runContext),
        tools: request.tools.length ? [...toolDefinitions(request.tools, userTools), ...mcpToolDefinitions(request.mcpTools ?? [])] : [],
        ...(request.toolChoice && request.tools.length ? { toolChoice: request.toolChoice } : {}),
        ...(request.settings ? { settings: request.settings } : {}),
        // A provider that never answers fails as a provider timeout (counted) before the activity's
        // start-to-close timeout, which is left for a lost worker (not counted).
        timeoutMs: Math.max(1_000, Math.min(config.requestTimeoutMs, context.info.startToCloseTimeoutMs - START_TO_CLOSE_MARGIN_MS)),
        // A cancelled call (a cancelled turn or run) stops at the provider too: no tokens spent on an answer nobody reads.
        signal: context.cancellationSignal,
      };
      const known = new Set([...request.tools, ...(request.mcpTools ?? []).map((tool) => tool.name)]);
      const reply = request.stream ? await streamed(provider, asked, request.step, context.info.attempt) : { ...(await provider.complete(asked)), streamed: false };
      const response = withRecoveredCalls({ ...reply, provider: provider.name }, known);
      // Reads that fail to run are left to the workflow: never a provider failure.
      const read = await readAhead(response.toolCalls, request.readAhead, readTools, MAX_RESULT_BYTES - payloadBytes(response)).catch(() => undefined);
      const result = read ? { ...response, readAhead: read } : response;
      transcripts.predict(request, result);
      return result;
    } catch (err) {
      // Cancelled, not a provider failure: nothing to count, and the run has moved on.
      if (context.cancellationSignal.aborted) throw new CancelledFailure('model call cancelled');
      // The provider was never asked: the count goes on to the next attempt as it was.
      if (err instanceof ApplicationFailure && err.type === TRANSCRIPT_UNAVAILABLE) {
        heartbeat();
        throw err;
      }
      const classified = err instanceof ApplicationFailure ? err : provider.classify(err);
      const counted = countProviderFailure(failureOf(classified), progress);
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
 * A streamed call: its text published to the run in batches. A provider that refuses to stream
 * this request is asked once again without streaming, and the run is told so.
 */
async function streamed(provider: ModelProvider, asked: ProviderRequest, step: number, attempt: number): Promise<LLMResponse> {
  await using streamClient = WorkflowStreamClient.fromWithinActivity({ batchInterval: `${PUBLISH_EVERY_MS} milliseconds` });
  const events = streamClient.topic<RunEvent>(EVENTS_TOPIC);
  const batcher = new TextBatcher((event) => events.publish(event, { forceFlush: true }), PUBLISH_PACE);
  const publish = (event: RunEvent) => batcher.publish(event);
  if (attempt > 1) publish({ type: 'attempt_restart', step, attempt });
  try {
    // No heartbeat per chunk: the ticker's beat every 2 s is enough for a 10 s heartbeat timeout, and
    // a beat sent at once is a server write that the activity's completion then waits for.
    let reply: ProviderReply;
    try {
      reply = await provider.stream(asked, (delta) => publish({ type: 'text', step, attempt, delta }));
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      const classified = provider.classify(err);
      if (classified.fault.kind !== 'stream_refused') throw classified;
      publish({ type: 'status', step, message: `Streaming unavailable, falling back to non-stream mode (${classified.type}).` });
      return { ...(await provider.complete(asked)), streamed: false };
    }
    return { ...reply, streamed: true, toolCallsShown: false };
  } finally {
    batcher.flush();
  }
}

/**
 * Temporal refuses an activity result over its 2 MB payload limit, and a refused completion is
 * retried like a lost worker, which has no attempt limit: a reply that large would be asked for
 * again for ever. It fails at once instead, as the provider error it is (the model said too much).
 * Reads run ahead take only what room the reply leaves.
 */
const MAX_RESULT_BYTES = 1_900_000;

function payloadBytes(response: LLMResponse): number {
  const bytes = Buffer.byteLength(JSON.stringify(response));
  if (bytes <= MAX_RESULT_BYTES) return bytes;
  throw ApplicationFailure.nonRetryable(`the model's reply is ${bytes} bytes, over the ${MAX_RESULT_BYTES} a Temporal payload may carry`, 'ReplyTooLarge');
}

/** A reply with no tool calls whose text holds some (src/activities/model/recover-tool-calls.ts): the calls, marked. */
function withRecoveredCalls(response: LLMResponse, known: ReadonlySet<string>): LLMResponse {
  if (response.toolCalls.length > 0) return response;
  const recovered = recoverToolCalls(response.text, known);
  if (!recovered) return response;
  return { ...response, text: recovered.text, toolCalls: recovered.calls, recoveredToolCalls: recovered.calls.length, stopReason: 'tool_calls' };
}
