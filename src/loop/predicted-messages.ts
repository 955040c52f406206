import { responseToMessage, type LLMResponse, type Message } from '../common/messages';
import { fnv1a64 } from './hash';
import { uniqueToolCallIds } from './tool-call-ids';
import { toolResult } from './tool-results';

/**
 * The messages a run adds after a reply whose calls were all read ahead and all succeeded: the
 * reply as the loop records it, then each read's output as its result. The model call's worker
 * keeps them with the conversation it sent; the workflow leaves them out of the next call's input
 * when its own messages are exactly these (`TranscriptRef.predicted`), so a read's output goes into
 * the history once, in the call's result, instead of twice. Anything else (a note after the
 * results, a failed read, ids the loop changed) and the workflow sends its messages as ever.
 * Undefined when the reply is not such a reply.
 */
export function predictedMessages(response: LLMResponse, step: number): Message[] | undefined {
  const reads = response.readAhead;
  if (!reads || response.toolCalls.length === 0 || reads.length !== response.toolCalls.length) return undefined;
  const calls = uniqueToolCallIds(response.toolCalls, step);
  const results = [];
  for (const [index, call] of calls.entries()) {
    const outcome = reads[index]?.outcome;
    if (!outcome?.ok) return undefined;
    results.push(toolResult(call.id, outcome.output));
  }
  return [responseToMessage({ ...response, toolCalls: calls }), { role: 'user', content: results }];
}

/**
 * What the workflow says its left-out messages are, for the worker to check its prediction against:
 * their count, and a digest of their content. Undefined when `held` are not exactly `predicted`
 * (whatever the order of their keys).
 */
export function leftOutDigest(held: readonly Message[], predicted: readonly Message[]): { messages: number; digest: string } | undefined {
  if (held.length === 0 || held.length !== predicted.length) return undefined;
  const text = canonical(held);
  return text === canonical(predicted) ? digestOf(held.length, text) : undefined;
}

/** The digest `leftOutDigest` names, of messages a worker holds. */
export function messagesDigest(messages: readonly Message[]): { messages: number; digest: string } {
  return digestOf(messages.length, canonical(messages));
}

function digestOf(messages: number, text: string): { messages: number; digest: string } {
  return { messages, digest: `${text.length}:${fnv1a64(text)}` };
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v));
}
