import { createHash } from 'node:crypto';

/**
 * The scripted model server's Anthropic side: a Messages API request read as the Chat Completions
 * body the scripts and tests look at, a prompt cache that behaves as the real one does, and the
 * answers in the Messages API's wire format.
 */

/** A Messages API request as the Chat Completions body it means: scripts and tests read one shape whichever wire served them. */
export function chatBodyOf(body: any): any {
  const messages: any[] = [];
  const system = typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? body.system.map((b: any) => b.text ?? '').join('') : '';
  if (system) messages.push({ role: 'system', content: system });
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    const blocks: any[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content ?? []);
    const text = blocks.filter((b) => b.type === 'text').map((b) => b.text).join('');
    if (message.role === 'assistant') {
      const calls = blocks.filter((b) => b.type === 'tool_use');
      const thinking = blocks.filter((b) => b.type === 'thinking').map((b) => b.thinking).join('\n\n');
      messages.push({
        role: 'assistant',
        ...(thinking ? { reasoning_content: thinking } : {}),
        content: text || null,
        ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })) } : {}),
      });
      continue;
    }
    // The adapter joins a run's consecutive user messages into one: each text block is one of them.
    for (const block of blocks) {
      if (block.type === 'tool_result') {
        const content = typeof block.content === 'string' ? block.content : (block.content ?? []).map((b: any) => b.text ?? '').join('');
        messages.push({ role: 'tool', tool_call_id: block.tool_use_id, content });
      }
    }
    for (const block of blocks) if (block.type === 'text' && block.text) messages.push({ role: 'user', content: block.text });
  }
  const tools = (body.tools ?? []).map((t: any) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));
  return {
    model: body.model,
    messages,
    ...(tools.length ? { tools } : {}),
    ...(body.tool_choice?.type === 'any' ? { tool_choice: 'required' } : {}),
    ...(body.max_tokens !== undefined ? { max_tokens: body.max_tokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.stream ? { stream: true } : {}),
  };
}

const tokensOf = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);
/** The real cache looks for an earlier hit this many blocks back from a breakpoint. */
const LOOKBACK_BLOCKS = 20;

/**
 * A prompt cache as Anthropic's behaves, at the scale of this server's token estimate: the prompt
 * is the tools, the system blocks and the messages' blocks in that order; a block marked
 * `cache_control` ends a prefix that is written to the cache; a later request reads the longest
 * prefix seen before, found at a breakpoint or up to 20 blocks before one.
 */
export class PromptCache {
  private readonly stored = new Set<string>();

  /** Input tokens of a request: uncached, read from the cache, written to it. */
  use(scenario: string, body: any): { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number } {
    const blocks = promptBlocks(body);
    const sizes = blocks.map((b) => tokensOf(withoutCacheControl(b)));
    const total = sizes.reduce((a, b) => a + b, 0);
    const keys: string[] = [];
    const hash = createHash('sha256').update(scenario);
    for (const block of blocks) keys.push(hash.update(JSON.stringify(withoutCacheControl(block))).copy().digest('hex'));
    const breakpoints = blocks.flatMap((b, i) => (b?.cache_control ? [i] : []));
    const upTo = (end: number) => sizes.slice(0, end + 1).reduce((a, b) => a + b, 0);
    let hit = -1;
    for (const point of breakpoints) {
      for (let i = point; i >= Math.max(0, point - LOOKBACK_BLOCKS); i--) {
        if (this.stored.has(keys[i] ?? '')) {
          hit = Math.max(hit, i);
          break;
        }
      }
    }
    const read = hit >= 0 ? upTo(hit) : 0;
    const last = breakpoints.at(-1) ?? -1;
    const write = last > hit ? upTo(last) - read : 0;
    for (const point of breakpoints) this.stored.add(keys[point] ?? '');
    return { input_tokens: total - read - write, cache_read_input_tokens: read, cache_creation_input_tokens: write };
  }
}

function promptBlocks(body: any): any[] {
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  const messages = (body.messages ?? []).flatMap((m: any) =>
    typeof m.content === 'string' ? [{ role: m.role, type: 'text', text: m.content }] : m.content.map((b: any) => ({ role: m.role, ...b })),
  );
  return [...(body.tools ?? []), ...system, ...messages];
}

function withoutCacheControl(block: any): any {
  const { cache_control: _ignored, ...rest } = block ?? {};
  return rest;
}

/** The signature of a thinking block: the server checks it when the block comes back, as the real API does. */
export function signatureOf(thinking: string): string {
  return `sig-${createHash('sha256').update(thinking).digest('hex').slice(0, 24)}`;
}

/** A thinking block sent back altered or unsigned, or undefined when all are intact. */
export function badThinkingBlock(body: any): string | undefined {
  for (const message of body.messages ?? []) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === 'thinking' && block.signature !== signatureOf(block.thinking)) return 'messages: a thinking block was sent back altered or without its signature';
    }
  }
  return undefined;
}

export function anthropicErrorType(status: number): string {
  if (status === 529) return 'overloaded_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

const STOP_REASONS: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' };

export interface AnthropicAnswer {
  text: string;
  chunks: string[];
  thinking?: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason?: string;
  outputTokens: number;
  input: ReturnType<PromptCache['use']>;
}

function contentOf(answer: AnthropicAnswer): any[] {
  const content: any[] = [];
  if (answer.thinking) content.push({ type: 'thinking', thinking: answer.thinking, signature: signatureOf(answer.thinking) });
  if (answer.text) content.push({ type: 'text', text: answer.text });
  for (const call of answer.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: parseOr(call.arguments) });
  return content;
}

function parseOr(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function stopReason(answer: AnthropicAnswer): string {
  if (answer.finishReason) return STOP_REASONS[answer.finishReason] ?? answer.finishReason;
  return answer.toolCalls.length ? 'tool_use' : 'end_turn';
}

export function anthropicMessage(model: string, answer: AnthropicAnswer): object {
  return {
    id: 'msg_scripted',
    type: 'message',
    role: 'assistant',
    model,
    content: contentOf(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: { ...answer.input, output_tokens: answer.outputTokens },
  };
}

/** The answer as the events of a Messages API stream; `whole: false` leaves out the end (a stream that stops short). */
export function anthropicEvents(model: string, answer: AnthropicAnswer, whole: boolean): Array<{ event: string; data: object }> {
  const events: Array<{ event: string; data: object }> = [];
  const push = (data: { type: string }) => events.push({ event: data.type, data });
  push({ type: 'message_start', message: { ...anthropicMessage(model, answer), content: [], stop_reason: null, usage: { ...answer.input, output_tokens: 1 } } } as never);
  let index = 0;
  if (answer.thinking) {
    push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } } as never);
    push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: answer.thinking } } as never);
    push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: signatureOf(answer.thinking) } } as never);
    push({ type: 'content_block_stop', index } as never);
    index += 1;
  }
  if (answer.chunks.length) {
    push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } } as never);
    for (const text of answer.chunks) push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } } as never);
    push({ type: 'content_block_stop', index } as never);
    index += 1;
  }
  for (const call of answer.toolCalls) {
    const half = Math.ceil(call.arguments.length / 2);
    push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } } as never);
    push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: call.arguments.slice(0, half) } } as never);
    push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: call.arguments.slice(half) } } as never);
    push({ type: 'content_block_stop', index } as never);
    index += 1;
  }
  if (whole) {
    push({ type: 'message_delta', delta: { stop_reason: stopReason(answer), stop_sequence: null }, usage: { output_tokens: answer.outputTokens } } as never);
    push({ type: 'message_stop' } as never);
  }
  return events;
}
