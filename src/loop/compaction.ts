import type { Message } from '../common/messages';
import { microCompact } from './micro-compaction';

export { isTruncatedPlaceholder, microCompact, truncatedPlaceholder } from './micro-compaction';
export { renderTranscript, summaryRequestMessages, SUMMARY_INSTRUCTIONS } from './compaction-summary';

export interface CompactionOptions {
  /** Estimated tokens above which the history is compacted (BareAgent: 50,000). */
  thresholdTokens: number;
  /** Tool results micro compaction leaves whole, the most recent ones. */
  keepRecentToolResults: number;
  /** Messages full compaction never summarises, the most recent ones (at least). */
  keepRecentMessages: number;
}

export const DEFAULT_COMPACTION: Readonly<CompactionOptions> = {
  thresholdTokens: 50_000,
  keepRecentToolResults: 3,
  keepRecentMessages: 6,
};

export type CompactionPlan =
  | { kind: 'none'; tokens: number }
  | { kind: 'micro'; tokens: number }
  /** Summarise `messages.slice(headLength(messages), keepFrom)`; keep the rest as it is. */
  | { kind: 'full'; tokens: number; keepFrom: number };

export const SUMMARY_OPEN = '<compacted-summary>';
export const SUMMARY_CLOSE = '</compacted-summary>';

/** About four characters a token, over the JSON of every message's content: cheap and replay-safe. */
export function estimateTokens(messages: readonly Message[]): number {
  const chars = messages.reduce((n, m) => n + (JSON.stringify(m.content)?.length ?? 0), 0);
  return Math.ceil(chars / 4);
}

/**
 * What to do before the next model call. Over the threshold: micro compaction while it still
 * has tool results to shrink; after that (the caller compacts, then asks again) a full one.
 * `none` over the threshold means nothing is left to compact without breaking a rule.
 */
export function planCompaction(
  messages: readonly Message[],
  options: CompactionOptions = DEFAULT_COMPACTION,
  count: (messages: readonly Message[]) => number = estimateTokens,
): CompactionPlan {
  const tokens = count(messages);
  if (tokens <= options.thresholdTokens) return { kind: 'none', tokens };
  if (microCompact(messages, options.keepRecentToolResults).truncated > 0) return { kind: 'micro', tokens };
  const keepFrom = fullCompactionBoundary(messages, options.keepRecentMessages);
  return keepFrom === undefined ? { kind: 'none', tokens } : { kind: 'full', tokens, keepFrom };
}

/** Messages kept ahead of the summary: everything up to and including the first user message (the task). */
export function headLength(messages: readonly Message[]): number {
  return messages.findIndex((m) => m.role === 'user') + 1;
}

/** The messages a full compaction summarises. */
export function olderMessages(messages: readonly Message[], keepFrom: number): Message[] {
  return messages.slice(headLength(messages), keepFrom);
}

/**
 * The latest start of the kept tail that keeps at least `keepRecentMessages` and is safe: no
 * tool_result in the tail whose tool_use would be summarised away (an orphaned `tool` message
 * is rejected by Chat Completions). At least one message that is not itself a summary must be
 * summarised, or compacting again would only rewrite the last summary.
 */
export function fullCompactionBoundary(messages: readonly Message[], keepRecentMessages: number): number | undefined {
  const head = headLength(messages);
  const safe = safeTailStarts(messages);
  for (let i = Math.min(messages.length - keepRecentMessages, messages.length - 1); i > head; i--) {
    if (!safe[i]) continue;
    return messages.slice(head, i).every(isSummaryMessage) ? undefined : i;
  }
  return undefined;
}

/** `safe[i]`: every tool_result in `messages.slice(i)` has its tool_use there too. */
export function safeTailStarts(messages: readonly Message[]): boolean[] {
  const safe: boolean[] = new Array<boolean>(messages.length).fill(false);
  const unmatched = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const content = messages[i]?.content;
    if (Array.isArray(content)) {
      for (const block of content) if (block.type === 'tool_result') unmatched.add(block.tool_use_id);
      for (const block of content) if (block.type === 'tool_use') unmatched.delete(block.id);
    }
    safe[i] = unmatched.size === 0;
  }
  return safe;
}

export const summaryMessage = (summaryText: string): Message => ({
  role: 'user',
  content: `${SUMMARY_OPEN}\n${summaryText.trim()}\n${SUMMARY_CLOSE}`,
});

export const isSummaryMessage = (message: Message): boolean =>
  message.role === 'user' && typeof message.content === 'string' && message.content.startsWith(SUMMARY_OPEN);

/** A model reply worth keeping as the summary; otherwise the caller keeps its backup. */
export const isUsableSummary = (summaryText: string): boolean => summaryText.trim().length > 0;

/**
 * `[task, <compacted-summary>, ...messages.slice(keepFrom)]`. The summary is a user message, so
 * the result can hold two or three user messages in a row (task, summary, and a tail that
 * starts with the user's follow-up): Chat Completions accepts that; what it rejects, a tool
 * message without its assistant tool call, cannot happen at a safe boundary. A keepFrom that
 * is not one, or a blank summary, is a caller bug and throws.
 */
export function applySummary(messages: readonly Message[], keepFrom: number, summaryText: string): Message[] {
  const head = headLength(messages);
  if (!Number.isInteger(keepFrom) || keepFrom <= head || keepFrom > messages.length) {
    throw new RangeError(`keepFrom ${keepFrom} is outside (${head}, ${messages.length}]`);
  }
  if (keepFrom < messages.length && !safeTailStarts(messages)[keepFrom]) {
    throw new RangeError(`keepFrom ${keepFrom} would separate a tool_result from its tool_use`);
  }
  if (!isUsableSummary(summaryText)) throw new RangeError('the summary is blank: keep the history as it was');
  return [...messages.slice(0, head), summaryMessage(summaryText), ...messages.slice(keepFrom)];
}
