import type { ContentBlock, Message } from '../common/messages';

const TRUNCATED = /^\[truncated: .* result, \d+ chars\]$/;

/** BareAgent's micro compaction placeholder: what an old tool output becomes. */
export const truncatedPlaceholder = (tool: string, chars: number): string => `[truncated: ${tool} result, ${chars} chars]`;
export const isTruncatedPlaceholder = (content: string): boolean => TRUNCATED.test(content);

/**
 * Every tool_result block but the last `keepRecent` (counted across the whole history) becomes
 * `[truncated: <tool> result, <N> chars]`, the tool's name taken from its tool_use block and N
 * the original length. Left as they are: placeholders already, and results no longer than
 * their placeholder would be (replacing them would not shrink anything). Returns new arrays;
 * messages it does not change are shared, never mutated.
 */
export function microCompact(messages: readonly Message[], keepRecent = 3): { messages: Message[]; truncated: number } {
  const total = messages.reduce((n, m) => n + resultBlocks(m).length, 0);
  const names = new Map<string, string>();
  let position = 0;
  let truncated = 0;
  const shrink = (block: ContentBlock): ContentBlock => {
    if (block.type === 'tool_use') names.set(block.id, block.name);
    if (block.type !== 'tool_result') return block;
    const recent = position++ >= total - keepRecent;
    if (recent || isTruncatedPlaceholder(block.content)) return block;
    const placeholder = truncatedPlaceholder(names.get(block.tool_use_id) ?? 'unknown', block.content.length);
    if (placeholder.length >= block.content.length) return block;
    truncated++;
    return { ...block, content: placeholder };
  };
  const out = messages.map((message) => {
    if (typeof message.content === 'string') return message;
    const content = message.content.map(shrink);
    return content.every((block, i) => block === message.content[i]) ? message : { ...message, content };
  });
  return { messages: out, truncated };
}

function resultBlocks(message: Message): ContentBlock[] {
  return typeof message.content === 'string' ? [] : message.content.filter((b) => b.type === 'tool_result');
}
