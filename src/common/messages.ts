import { z } from 'zod';

/** Anthropic-style content blocks, as BareAgent keeps them in its history (turned into Chat Completions messages per call). */
export const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
export type TextBlock = z.infer<typeof TextBlock>;

export const ToolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
export type ToolUseBlock = z.infer<typeof ToolUseBlock>;

export const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.string(),
  is_error: z.boolean(),
});
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;

export const ContentBlock = z.discriminatedUnion('type', [TextBlock, ToolUseBlock, ToolResultBlock]);
export type ContentBlock = z.infer<typeof ContentBlock>;

/**
 * A reasoning model's thinking, as its provider returned it and under the field it used
 * (`reasoning_content`: DeepSeek, llama.cpp, vLLM; `reasoning`: OpenRouter, Ollama), so it can be
 * sent back with the assistant message where the provider requires it.
 */
export const Reasoning = z.object({ field: z.enum(['reasoning_content', 'reasoning']), text: z.string() });
export type Reasoning = z.infer<typeof Reasoning>;

export const Message = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.union([z.string(), z.array(ContentBlock)]),
  /** On an assistant message: the reasoning that came with it. */
  reasoning: Reasoning.optional(),
});
export type Message = z.infer<typeof Message>;

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments, or the raw string when the model sent invalid JSON. */
  input: unknown;
  /** Set when the arguments could not be parsed as a JSON object. */
  parseError?: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** What the provider activity returns: plain JSON, the seed's LLMResponse. */
export interface LLMResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason: string;
  model: string;
  /** True when the text already reached followers as deltas: it is not shown a second time. */
  streamed: boolean;
  /**
   * Whether the tool calls already reached followers. Now always false: the workflow shows each
   * call as it runs it, so a turn without text sends followers nothing from the activity (no extra
   * workflow task). Absent in responses recorded before, where `streamed` said it.
   */
  toolCallsShown?: boolean;
  /** The provider reported no usage (a local server's stream, say): `usage` is zero, not a count. */
  usageMissing?: true;
  /** How many of `toolCalls` the provider left as text in the reply and the activity recovered. */
  recoveredToolCalls?: number;
  /** The reasoning the provider returned beside the text, if any. */
  reasoning?: Reasoning;
}

/** The seed's `response.to_message()`. */
export function responseToMessage(response: LLMResponse): Message {
  const content: ContentBlock[] = [];
  if (response.text) content.push({ type: 'text', text: response.text });
  for (const call of response.toolCalls) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
  }
  return { role: 'assistant', content, ...(response.reasoning ? { reasoning: response.reasoning } : {}) };
}

export function isToolResultMessage(message: Message): boolean {
  return (
    message.role === 'user' &&
    Array.isArray(message.content) &&
    message.content.some((block) => block.type === 'tool_result')
  );
}
