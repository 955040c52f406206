import type { Message } from '../common/messages';

/**
 * How many tokens the context holds, for the compaction threshold. The provider counts exactly:
 * its usage for the last call covers everything sent then, so only what was added since is
 * estimated. The estimate itself reads the script: about four characters a token for Latin text
 * and code, but about one a token for Chinese, Japanese and Korean (four characters each would
 * see such a transcript ~6 times too small, and compact only after the provider refused it).
 */
const WIDE = /[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/u;

export function estimateTextTokens(text: string): number {
  let narrow = 0;
  let wide = 0;
  let other = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) narrow += 1;
    else if (WIDE.test(char) || code >= 0x20000) wide += 1;
    else other += 1;
  }
  return Math.ceil(narrow / 4 + wide + other / 2);
}

export function estimateContextTokens(messages: readonly Message[]): number {
  return messages.reduce((n, m) => n + estimateTextTokens(JSON.stringify(m.content) ?? ''), 0);
}

/** The provider's count for the first `sentCount` messages, taken from the last model call. */
export interface TokenAnchor {
  sentCount: number;
  inputTokens: number;
}

/** The provider's count plus an estimate of what came after; the estimate alone without a count. */
export function contextTokens(messages: readonly Message[], anchor: TokenAnchor | undefined): number {
  if (!anchor || anchor.inputTokens <= 0 || anchor.sentCount > messages.length) return estimateContextTokens(messages);
  return anchor.inputTokens + estimateContextTokens(messages.slice(anchor.sentCount));
}
