import type OpenAI from 'openai';
import type { ModelStopReason, Usage } from '../../../../common/messages';

const STOP_REASONS: Readonly<Record<string, ModelStopReason>> = {
  stop: 'end',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'output_limit',
  content_filter: 'refused',
};

/** A `finish_reason` in BareAgent's words. */
export function stopReasonOf(finishReason: string | null | undefined): ModelStopReason {
  return STOP_REASONS[finishReason ?? 'stop'] ?? 'other';
}

/** Chat Completions usage: `prompt_tokens` counts the cached ones too (`prompt_tokens_details.cached_tokens`). */
export function usageOf(usage: OpenAI.CompletionUsage): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    ...(cached ? { cacheReadTokens: cached } : {}),
  };
}
