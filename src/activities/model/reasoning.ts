import type { Reasoning } from '../../common/messages';

/** The reasoning field of a message or a stream delta, under whichever of the two names the provider uses. */
export function reasoningOf(part: unknown): Reasoning | undefined {
  if (!part || typeof part !== 'object') return undefined;
  const fields = part as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof fields.reasoning_content === 'string' && fields.reasoning_content) return { field: 'reasoning_content', text: fields.reasoning_content };
  if (typeof fields.reasoning === 'string' && fields.reasoning) return { field: 'reasoning', text: fields.reasoning };
  return undefined;
}
