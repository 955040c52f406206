import type OpenAI from 'openai';
import type { ContentBlock, Message, ToolCall } from '../../../../common/messages';
import { reasoningField } from './reasoning';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Content blocks to Chat Completions messages: a tool_result block becomes a `tool` message. */
export function toChatMessages(messages: readonly Message[], systemPrompt?: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (systemPrompt) out.push({ role: 'system', content: systemPrompt });
  for (const message of messages) out.push(...convert(message));
  return out;
}

function convert(message: Message): ChatMessage[] {
  if (typeof message.content === 'string') {
    return [{ role: message.role, content: message.content } as ChatMessage];
  }
  const blocks = message.content;
  const text = textOf(blocks);
  if (message.role === 'assistant') {
    const calls = blocks.filter((b) => b.type === 'tool_use');
    // Neither text nor tool calls (an empty reply kept by an older run): providers reject it, and it says nothing.
    if (!text && calls.length === 0) return [];
    // Reasoning goes back with a tool-call message: thinking models with tools (DeepSeek, Kimi) need the
    // chain of one turn intact; a final answer's reasoning is left out, as those providers ask.
    const reasoning = calls.length ? reasoningField(message.reasoning) : {};
    return [
      {
        role: 'assistant',
        ...reasoning,
        content: text || null,
        ...(calls.length
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: {
                  name: call.name,
                  arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
                },
              })),
            }
          : {}),
      },
    ];
  }
  const out: ChatMessage[] = [];
  for (const block of blocks) {
    if (block.type === 'tool_result') {
      out.push({ role: 'tool', tool_call_id: block.tool_use_id, content: block.content });
    }
  }
  if (text) out.push({ role: message.role, content: text } as ChatMessage);
  return out;
}

function textOf(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');
}

/** Arguments the model wrote: an object, or the raw text with the reason it is not one. */
export function parseToolArguments(id: string, name: string, raw: string): ToolCall {
  if (raw.trim() === '') return { id, name, input: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { id, name, input: value };
    return { id, name, input: raw, parseError: 'arguments must be a JSON object' };
  } catch (err) {
    return { id, name, input: raw, parseError: `invalid JSON (${(err as Error).message})` };
  }
}
