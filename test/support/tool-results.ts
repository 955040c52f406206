import type { Message } from '../../src/common/messages';

/** Each tool result of a conversation by its call id: what the model was given for that call. */
export function toolResultsById(messages: Message[]): Map<string, { content: string; is_error: boolean }> {
  const results = new Map<string, { content: string; is_error: boolean }>();
  for (const m of messages) if (Array.isArray(m.content)) for (const b of m.content) if (b.type === 'tool_result') results.set(b.tool_use_id, b);
  return results;
}
