/**
 * The `patched()` ids of the agent run. Each is asked once, in the AgentRun constructor, in this
 * order: a patch marker is a history event, so moving a call changes what replays.
 */

/** The patch that moved the guard from pattern lists to parsed commands (issue 12). */
export const PARSED_SHELL_GUARD = 'parsed-shell-guard';
/** The patch that made permission answers per request and tool-call ids unique (issue 13). */
export const ANSWERS_PER_REQUEST = 'answers-per-request';
/** The patch that made truncation recovery per turn and stopped taking an empty reply as the answer (issue 13). */
export const REPLIES_PER_TURN = 'replies-per-turn';
/** The patch that counts repeated failures per action with a warning first (issue 13). */
export const FAILURES_BY_ACTION = 'failures-by-action';
/** The patch that counts context tokens from the provider's usage, CJK-aware (issue 13). */
export const TOKENS_FROM_USAGE = 'tokens-from-usage';
