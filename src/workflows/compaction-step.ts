import type { Message } from '../common/messages';
import {
  applySummary,
  estimateTokens,
  isUsableSummary,
  microCompact,
  olderMessages,
  planCompaction,
  summaryRequestMessages,
  type CompactionOptions,
} from '../loop/compaction';
import { attempt } from './failures';

export type CompactionOutcome =
  | { kind: 'none' }
  | { kind: 'compacted'; mode: 'micro' | 'full'; messages: Message[]; tokensBefore: number; tokensAfter: number }
  /** The summary failed: the history is restored from the backup taken before it. */
  | { kind: 'summary_failed'; messages: Message[]; tokensBefore: number; error: string };

/**
 * Micro compaction first (old tool outputs become placeholders: cheap, no model call); if the
 * history is still over the threshold, a model-written summary replaces the older turns.
 */
/**
 * `count`: the tokens of the history as it is (the provider's count where there is one);
 * `estimate`: of a rewritten one, which no provider has counted yet.
 */
export interface TokenCounting {
  count: (messages: readonly Message[]) => number;
  estimate: (messages: readonly Message[]) => number;
}

const ESTIMATE_ONLY: TokenCounting = { count: estimateTokens, estimate: estimateTokens };

export async function compactHistory(
  messages: readonly Message[],
  options: CompactionOptions,
  summarize: (request: Message[]) => Promise<string>,
  tokens: TokenCounting = ESTIMATE_ONLY,
): Promise<CompactionOutcome> {
  let plan = planCompaction(messages, options, tokens.count);
  if (plan.kind === 'none') return { kind: 'none' };
  const tokensBefore = plan.tokens;
  let current = [...messages];
  if (plan.kind === 'micro') {
    current = microCompact(current, options.keepRecentToolResults).messages;
    plan = planCompaction(current, options, tokens.estimate);
    if (plan.kind !== 'full') return { kind: 'compacted', mode: 'micro', messages: current, tokensBefore, tokensAfter: tokens.estimate(current) };
  }
  if (plan.kind !== 'full') return { kind: 'none' };
  const backup = current;
  const keepFrom = plan.keepFrom;
  const summary = await attempt(async () => {
    const text = await summarize(summaryRequestMessages(olderMessages(current, keepFrom)));
    if (!isUsableSummary(text)) throw new Error('the model returned an empty summary');
    return text;
  });
  if (!summary.ok) return { kind: 'summary_failed', messages: backup, tokensBefore, error: `${summary.type}: ${summary.message}` };
  const compacted = applySummary(current, keepFrom, summary.value);
  return { kind: 'compacted', mode: 'full', messages: compacted, tokensBefore, tokensAfter: tokens.estimate(compacted) };
}
