import type OpenAI from 'openai';
import type { RunEvent } from '../../common/events';
import type { LLMResponse, Reasoning, ToolCall } from '../../common/messages';
import { reasoningOf } from './reasoning';
import { noFinishReason, noStreamResponse } from './stream-interrupted';
import { parseToolArguments } from './wire-format';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Folds a Chat Completions stream into one response, publishing text as it arrives; tool calls
 * are assembled here and shown by the workflow as it runs them, so that a turn without text
 * publishes nothing (each publish from an activity costs the workflow a task).
 * A stream that ends with no event, or with no finish reason, was cut short: it throws a
 * retryable `StreamInterrupted` instead of passing a partial answer off as the whole one.
 */
export async function collectStream(
  chunks: AsyncIterable<Chunk>,
  step: number,
  attempt: number,
  publish: (event: RunEvent) => void,
  onChunk: () => void,
): Promise<LLMResponse> {
  let text = '';
  let model = '';
  let finishReason = '';
  let usage = { inputTokens: 0, outputTokens: 0 };
  let usageMissing = true;
  let eventCount = 0;
  const reasoning = { field: '' as Reasoning['field'] | '', text: '' };
  const partial: PartialCall[] = [];
  const done: ToolCall[] = [];
  const finish = (index: number) => {
    const call = partial[index];
    if (!call || done.length > index) return;
    const parsed = parseToolArguments(call.id, call.name, call.args);
    done.push(parsed);
  };
  for await (const chunk of chunks) {
    onChunk();
    eventCount += 1;
    model = chunk.model || model;
    if (chunk.usage) {
      usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
      usageMissing = false;
    }
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (choice.finish_reason) finishReason = choice.finish_reason;
    const delta = choice.delta;
    const thought = reasoningOf(delta);
    if (thought) {
      reasoning.field = thought.field;
      reasoning.text += thought.text;
    }
    if (delta?.content) {
      text += delta.content;
      publish({ type: 'text', step, attempt, delta: delta.content });
    }
    for (const toolDelta of delta?.tool_calls ?? []) {
      for (let earlier = done.length; earlier < toolDelta.index; earlier++) finish(earlier);
      const call = (partial[toolDelta.index] ??= { id: '', name: '', args: '' });
      if (toolDelta.id) call.id = toolDelta.id;
      if (toolDelta.function?.name) call.name += toolDelta.function.name;
      if (toolDelta.function?.arguments) call.args += toolDelta.function.arguments;
    }
  }
  if (eventCount === 0) throw noStreamResponse();
  if (!finishReason) throw noFinishReason(eventCount);
  for (let index = done.length; index < partial.length; index++) finish(index);
  const thought = reasoning.field && reasoning.text ? { reasoning: { field: reasoning.field, text: reasoning.text } } : {};
  return { text, toolCalls: done, usage, finishReason, model, streamed: true, toolCallsShown: false, ...(usageMissing ? { usageMissing } : {}), ...thought };
}
