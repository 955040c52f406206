import type OpenAI from 'openai';
import type { ToolCall } from '../../../../common/messages';
import type { ProviderReply } from '../../provider';
import { noFinishReason, noStreamResponse } from '../../stream-interrupted';
import { reasoningOf, toReasoning } from './reasoning';
import { stopReasonOf, usageOf } from './replies';
import { parseToolArguments } from './wire-format';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Folds a Chat Completions stream into one reply, handing on its text as it arrives; tool calls
 * are assembled here and shown by the workflow as it runs them, so that a turn without text
 * publishes nothing (each publish from an activity costs the workflow a task).
 * A stream that ends with no event, or with no finish reason, was cut short: it throws a
 * retryable `StreamInterrupted` instead of passing a partial answer off as the whole one.
 */
export async function collectStream(chunks: AsyncIterable<Chunk>, onText: (text: string) => void, onChunk: () => void): Promise<ProviderReply> {
  let text = '';
  let model = '';
  let finishReason = '';
  let usage: ProviderReply['usage'] = { inputTokens: 0, outputTokens: 0 };
  let usageMissing = true;
  let eventCount = 0;
  const reasoning = { field: '' as 'reasoning_content' | 'reasoning' | '', text: '' };
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
      usage = usageOf(chunk.usage);
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
      onText(delta.content);
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
  const thought = reasoning.field && reasoning.text ? { reasoning: toReasoning({ field: reasoning.field, text: reasoning.text }) } : {};
  return { text, toolCalls: done, usage, stopReason: stopReasonOf(finishReason), model, ...(usageMissing ? { usageMissing } : {}), ...thought };
}
