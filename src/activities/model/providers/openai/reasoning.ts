import { readReasoning, type Reasoning } from '../../../../common/messages';

export const OPENAI = 'openai';
type Field = 'reasoning_content' | 'reasoning';

/** The reasoning field of a message or a stream delta, under whichever of the two names the provider uses. */
export function reasoningOf(part: unknown): { field: Field; text: string } | undefined {
  if (!part || typeof part !== 'object') return undefined;
  const fields = part as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof fields.reasoning_content === 'string' && fields.reasoning_content) return { field: 'reasoning_content', text: fields.reasoning_content };
  if (typeof fields.reasoning === 'string' && fields.reasoning) return { field: 'reasoning', text: fields.reasoning };
  return undefined;
}

/** Kept with the reply: the text, and the field it came under as the part to send back. */
export function toReasoning(found: { field: Field; text: string }): Reasoning {
  return { text: found.text, provider: OPENAI, part: { field: found.field } };
}

/** A message's reasoning as the field it goes back under; another provider's reasoning stays out. */
export function reasoningField(value: unknown): Record<string, string> {
  const reasoning = readReasoning(value);
  if (!reasoning || reasoning.provider !== OPENAI) return {};
  const field = (reasoning.part as { field?: unknown } | undefined)?.field;
  return field === 'reasoning_content' || field === 'reasoning' ? { [field]: reasoning.text } : {};
}
