import type Anthropic from '@anthropic-ai/sdk';
import type { ModelSettings } from '../../../../common/input';
import { readReasoning, type Message, type ModelStopReason, type Reasoning, type Usage } from '../../../../common/messages';
import type { ProviderRequest, ToolSpec } from '../../provider';

export const ANTHROPIC = 'anthropic';

type Body = Anthropic.Messages.MessageCreateParamsNonStreaming;
type Block = Anthropic.Messages.ContentBlockParam;
type Param = Anthropic.Messages.MessageParam;
/** A thinking block as the API returned it, signature included: sent back verbatim. */
export type ThinkingBlock = Anthropic.Messages.ThinkingBlockParam | Anthropic.Messages.RedactedThinkingBlockParam;

/** The Messages API wants `max_tokens` on every request: without the run's own limit, this. */
const DEFAULT_MAX_TOKENS = 8192;
/** `reasoningEffort` as a thinking budget in tokens (the API's least is 1024). */
const THINKING_BUDGET: Readonly<Record<NonNullable<ModelSettings['reasoningEffort']>, number>> = { minimal: 1024, low: 2048, medium: 8192, high: 24_576 };
const CACHED = { cache_control: { type: 'ephemeral' } } as const;

/**
 * A request in the Messages API's words. The stable prefix is marked for the prompt cache: the
 * tools, the system prompt, and the conversation up to its last message, so the next turn, which
 * repeats all of it, reads it from the cache and pays full price only for what is new.
 */
export function bodyOf(request: ProviderRequest): Body {
  const maxTokens = request.settings?.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  const effort = request.settings?.reasoningEffort;
  const budget = effort ? Math.min(THINKING_BUDGET[effort], maxTokens - 1) : 0;
  const thinking = budget >= 1024;
  const tools = request.tools.map(toolOf);
  const last = tools.at(-1);
  if (last) tools[tools.length - 1] = { ...last, ...CACHED };
  return {
    model: request.model,
    max_tokens: maxTokens,
    messages: toAnthropicMessages(request.messages),
    ...(request.system ? { system: [{ type: 'text', text: request.system, ...CACHED }] } : {}),
    ...(tools.length ? { tools } : {}),
    ...(request.toolChoice && tools.length ? { tool_choice: { type: 'any' } } : {}),
    // The API takes no temperature with thinking on.
    ...(request.settings?.temperature !== undefined && !thinking ? { temperature: request.settings.temperature } : {}),
    ...(thinking ? { thinking: { type: 'enabled', budget_tokens: budget } } : {}),
    ...request.settings?.extraBody,
  } as Body;
}

function toolOf(tool: ToolSpec): Anthropic.Messages.Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.parameters as Anthropic.Messages.Tool.InputSchema };
}

/**
 * The history as the API wants it: roles alternating (a run's consecutive user messages, such as
 * tool results and a follow-up, joined into one), no empty text, the last block marked for the cache.
 */
export function toAnthropicMessages(messages: readonly Message[]): Param[] {
  const out: Param[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = role === 'assistant' ? assistantBlocks(message) : userBlocks(message);
    if (blocks.length === 0) continue;
    const previous = out.at(-1);
    if (previous?.role === role) previous.content = [...(previous.content as Block[]), ...blocks];
    else out.push({ role, content: blocks });
  }
  const last = out.at(-1);
  const blocks = last?.content as Block[] | undefined;
  const end = blocks?.at(-1);
  if (blocks && end && end.type !== 'thinking' && end.type !== 'redacted_thinking') blocks[blocks.length - 1] = { ...end, ...CACHED } as Block;
  return out;
}

function userBlocks(message: Message): Block[] {
  // A system message inside the history (a summary, a note) is told to the model as the user's.
  const prefix = message.role === 'system' ? '[system] ' : '';
  if (typeof message.content === 'string') return message.content ? [{ type: 'text', text: prefix + message.content }] : [];
  const blocks: Block[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result') blocks.push({ type: 'tool_result', tool_use_id: block.tool_use_id, content: block.content, is_error: block.is_error });
    else if (block.type === 'text' && block.text) blocks.push({ type: 'text', text: prefix + block.text });
  }
  return blocks;
}

function assistantBlocks(message: Message): Block[] {
  if (typeof message.content === 'string') return message.content ? [{ type: 'text', text: message.content }] : [];
  const text = message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  const calls = message.content.filter((b) => b.type === 'tool_use');
  if (!text && calls.length === 0) return [];
  return [
    ...thinkingBlocks(message.reasoning),
    ...(text ? [{ type: 'text' as const, text }] : []),
    ...calls.map((call) => ({
      type: 'tool_use' as const,
      id: call.id,
      name: call.name,
      // Arguments the model wrote as invalid JSON were answered with an error: the call goes back as an empty object.
      input: call.input && typeof call.input === 'object' && !Array.isArray(call.input) ? (call.input as Record<string, unknown>) : {},
    })),
  ];
}

/** The thinking blocks kept with a reply of this provider, verbatim with their signatures; none from another provider. */
function thinkingBlocks(value: unknown): ThinkingBlock[] {
  const reasoning = readReasoning(value);
  if (!reasoning || reasoning.provider !== ANTHROPIC) return [];
  const blocks = (reasoning.part as { blocks?: unknown } | undefined)?.blocks;
  return Array.isArray(blocks) ? (blocks as ThinkingBlock[]) : [];
}

/** The reply's thinking: its text for people, its blocks for the next turn. */
export function reasoningOf(blocks: readonly ThinkingBlock[]): Reasoning | undefined {
  if (blocks.length === 0) return undefined;
  const text = blocks.map((b) => (b.type === 'thinking' ? b.thinking : '')).join('\n\n');
  return { text, provider: ANTHROPIC, part: { blocks } };
}

const STOP_REASONS: Readonly<Record<string, ModelStopReason>> = {
  end_turn: 'end',
  stop_sequence: 'end',
  tool_use: 'tool_calls',
  max_tokens: 'output_limit',
  refusal: 'refused',
};

export function stopReasonOf(reason: string | null | undefined): ModelStopReason {
  return STOP_REASONS[reason ?? 'end_turn'] ?? 'other';
}

/** The API counts uncached input, cache writes and cache reads apart: `inputTokens` is their sum. */
export function usageOf(usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null }): Usage {
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: usage.input_tokens + read + write,
    outputTokens: usage.output_tokens,
    ...(read ? { cacheReadTokens: read } : {}),
    ...(write ? { cacheWriteTokens: write } : {}),
  };
}
