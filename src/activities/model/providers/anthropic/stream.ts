import type Anthropic from '@anthropic-ai/sdk';
import type { ToolCall } from '../../../../common/messages';
import type { ProviderReply } from '../../provider';
import { noFinishReason, noStreamResponse } from '../../stream-interrupted';
import { parseToolArguments } from '../openai/wire-format';
import { reasoningOf, stopReasonOf, usageOf, type ThinkingBlock } from './wire-format';

type Event = Anthropic.Messages.RawMessageStreamEvent;
type Open =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; json: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/** A whole reply's content blocks in BareAgent's terms. */
export function replyOf(blocks: readonly Anthropic.Messages.ContentBlock[]): Pick<ProviderReply, 'text' | 'toolCalls' | 'reasoning'> {
  const thinking: ThinkingBlock[] = [];
  const toolCalls: ToolCall[] = [];
  let text = '';
  for (const block of blocks) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') toolCalls.push(callOf(block.id, block.name, block.input));
    else if (block.type === 'thinking') thinking.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    else if (block.type === 'redacted_thinking') thinking.push({ type: 'redacted_thinking', data: block.data });
  }
  const reasoning = reasoningOf(thinking);
  return { text, toolCalls, ...(reasoning ? { reasoning } : {}) };
}

function callOf(id: string, name: string, input: unknown): ToolCall {
  if (input && typeof input === 'object' && !Array.isArray(input)) return { id, name, input };
  return parseToolArguments(id, name, typeof input === 'string' ? input : JSON.stringify(input ?? {}));
}

/**
 * Folds a Messages API stream into one reply, handing on its text as it arrives. A stream that
 * ends with no event, or before `message_stop`, was cut short: a retryable `StreamInterrupted`.
 */
export async function collectStream(events: AsyncIterable<Event>, onText: (text: string) => void, onEvent: () => void): Promise<ProviderReply> {
  const open: Open[] = [];
  const closed: Anthropic.Messages.ContentBlock[] = [];
  let model = '';
  let usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0 as number | null, cache_read_input_tokens: 0 as number | null };
  let stopReason: string | null = null;
  let count = 0;
  let stopped = false;
  for await (const event of events) {
    onEvent();
    count += 1;
    switch (event.type) {
      case 'message_start':
        model = event.message.model;
        usage = { ...usage, ...event.message.usage };
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') open[event.index] = { type: 'text', text: block.text };
        else if (block.type === 'tool_use') open[event.index] = { type: 'tool_use', id: block.id, name: block.name, json: '' };
        else if (block.type === 'thinking') open[event.index] = { type: 'thinking', thinking: block.thinking, signature: block.signature };
        else if (block.type === 'redacted_thinking') open[event.index] = { type: 'redacted_thinking', data: block.data };
        if (block.type === 'text' && block.text) onText(block.text);
        break;
      }
      case 'content_block_delta': {
        const block = open[event.index];
        const delta = event.delta;
        if (block?.type === 'text' && delta.type === 'text_delta') {
          block.text += delta.text;
          onText(delta.text);
        } else if (block?.type === 'tool_use' && delta.type === 'input_json_delta') block.json += delta.partial_json;
        else if (block?.type === 'thinking' && delta.type === 'thinking_delta') block.thinking += delta.thinking;
        else if (block?.type === 'thinking' && delta.type === 'signature_delta') block.signature += delta.signature;
        break;
      }
      case 'content_block_stop': {
        const block = open[event.index];
        if (block) closed[event.index] = finished(block);
        break;
      }
      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason;
        usage = { ...usage, ...Object.fromEntries(Object.entries(event.usage).filter(([, v]) => typeof v === 'number')) };
        break;
      case 'message_stop':
        stopped = true;
        break;
    }
  }
  if (count === 0) throw noStreamResponse();
  if (!stopped || !stopReason) throw noFinishReason(count);
  return { ...replyOf(closed.filter(Boolean)), usage: usageOf(usage), stopReason: stopReasonOf(stopReason), model };
}

function finished(block: Open): Anthropic.Messages.ContentBlock {
  if (block.type === 'tool_use') {
    const call = parseToolArguments(block.id, block.name, block.json);
    return { type: 'tool_use', id: block.id, name: block.name, input: call.parseError ? block.json : call.input } as Anthropic.Messages.ContentBlock;
  }
  if (block.type === 'text') return { type: 'text', text: block.text, citations: null };
  return block as Anthropic.Messages.ContentBlock;
}
