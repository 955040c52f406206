import type { ReadAheadResult } from './read-ahead';
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
 * A reasoning model's thinking: its text, the provider that produced it, and whatever that
 * provider needs back verbatim on a later turn (`part`: a signed thinking block, the field the
 * text came under). `part` is opaque to everything but that provider's adapter.
 */
const CurrentReasoning = z.object({ text: z.string(), provider: z.string().optional(), part: z.unknown().optional() });
/** As runs recorded it before providers had adapters: the Chat Completions field the text came under. */
const RecordedReasoning = z
  .object({ field: z.string(), text: z.string() })
  .transform(({ field, text }) => ({ text, provider: 'openai', part: { field } }));
export const Reasoning = z.union([RecordedReasoning, CurrentReasoning]);
export type Reasoning = z.output<typeof Reasoning>;

/** Reasoning in either shape (a message of a run recorded before the adapters, a replayed reply) in the current one. */
export function readReasoning(value: unknown): Reasoning | undefined {
  const parsed = Reasoning.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

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
  /** Every input token of the call, cached or not. */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Of `inputTokens`, those written to the provider's prompt cache. */
  cacheWriteTokens?: number;
}

/**
 * Why the model stopped, in BareAgent's words: `end` (it finished), `tool_calls`, `output_limit`
 * (cut by the output-token limit), `refused` (a content filter or refusal), `other`.
 */
export type ModelStopReason = 'end' | 'tool_calls' | 'output_limit' | 'refused' | 'other';

/** Replies recorded before the adapters carry the Chat Completions `finish_reason` instead. */
const RECORDED_FINISH_REASONS: Readonly<Record<string, ModelStopReason>> = { stop: 'end', tool_calls: 'tool_calls', length: 'output_limit', content_filter: 'refused' };

export function stopReasonOf(response: Pick<LLMResponse, 'stopReason' | 'finishReason'>): ModelStopReason {
  if (response.stopReason) return response.stopReason;
  return RECORDED_FINISH_REASONS[response.finishReason ?? 'stop'] ?? 'other';
}

/** What the provider activity returns: plain JSON, the seed's LLMResponse. Every reply since the adapters sets `stopReason`. */
export interface LLMResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  stopReason?: ModelStopReason;
  /** Replies recorded before `stopReason`: the provider's own word (read both with `stopReasonOf`). */
  finishReason?: string;
  model: string;
  /** The adapter that served the call (`openai`, `anthropic`); absent in replies recorded before it was kept. */
  provider?: string;
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
  /**
   * The reply's read-only calls, run by the model call when the request allowed it (src/common/read-ahead.ts):
   * one entry per tool call, in order, null for a call not read ahead. Absent: none was.
   */
  readAhead?: Array<ReadAheadResult | null>;
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
