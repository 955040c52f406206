import type { ToolCall } from '../../common/messages';

/**
 * Tool calls a server left as text in the reply, as small local models (and llama.cpp builds whose
 * parser misses the model's format) do: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`
 * (Qwen, Hermes) or a fenced JSON block naming a tool. Recovered only where that is unambiguous:
 * a tool this request offered, arguments that are a JSON object. Anything else stays text.
 */
const TAGGED = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const FENCED = /```(?:json|tool_call)?[ \t]*\n([\s\S]*?)\n?```/g;

export interface Recovered {
  text: string;
  calls: ToolCall[];
}

function asCall(raw: string, known: ReadonlySet<string>, id: string): ToolCall | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { name, arguments: args, parameters } = value as { name?: unknown; arguments?: unknown; parameters?: unknown };
  if (typeof name !== 'string' || !known.has(name)) return undefined;
  let input = args ?? parameters ?? {};
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input);
    } catch {
      return undefined;
    }
  }
  if (!input || typeof input !== 'object' || Array.isArray(input)) return undefined;
  return { id, name, input };
}

/** The calls found and the text without them; undefined when nothing qualifies. */
export function recoverToolCalls(text: string, known: ReadonlySet<string>): Recovered | undefined {
  if (!text || known.size === 0) return undefined;
  for (const pattern of [TAGGED, FENCED]) {
    const blocks = [...text.matchAll(pattern)];
    if (blocks.length === 0) continue;
    const calls = blocks.map((block, i) => asCall(block[1] ?? '', known, `call_text_${i + 1}`));
    // Tagged blocks are calls by their markup: one that does not parse makes the whole reply unsure.
    if (pattern === TAGGED && calls.some((call) => !call)) return undefined;
    const found = calls.filter((call): call is ToolCall => call !== undefined);
    if (found.length === 0) continue;
    let rest = text;
    blocks.forEach((block, i) => {
      if (calls[i]) rest = rest.replace(block[0], '');
    });
    return { text: rest.trim(), calls: found };
  }
  return undefined;
}
