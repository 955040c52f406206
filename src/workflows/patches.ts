import { patched } from '@temporalio/workflow';

/**
 * The `patched()` ids of the agent run. All but the last are asked once, by `askRunPatches` in the
 * AgentRun constructor, in this order: a patch marker is a history event, so moving a call changes
 * what replays.
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
/**
 * The patch that holds continue-as-new while children run, since they end with the run (issue 13).
 * The one asked elsewhere: at the hand-over, only while a child runs (see AgentRun.childrenHoldHandOver).
 */
export const CHILDREN_END_WITH_RUN = 'children-end-with-run';

/**
 * The patch that checks tool calls before they run: a blank `command` or `file_path` is an invalid
 * argument, "allow always" on a blank argument derives no rule, and a run keeps at most its
 * `concurrency` of background jobs and of background subagents running at once. Runs recorded
 * before it ran blank calls, could allow a bare tool for the run, and started any number of jobs.
 */
export const CHECKED_TOOL_CALLS = 'checked-tool-calls';

/** What a run does the new way; false only where it replays a history recorded before that patch. */
export interface RunPatches {
  /** Commands are parsed; the pattern-list guard otherwise. */
  parsedShellGuard: boolean;
  /** Each permission answer holds for its own request, and every tool call has an id of its own. */
  answersPerRequest: boolean;
  /** Truncation recovered per turn with the whole answer kept; an empty reply is not an answer. */
  repliesPerTurn: boolean;
  /** Repeated failures counted per action (tool and arguments), warned before the stop. */
  failuresByAction: boolean;
  /** Compaction counts tokens from the provider's usage plus a script-aware estimate. */
  tokensFromUsage: boolean;
  /** Blank arguments refused, no rule derived from them, jobs and subagents bounded per run. */
  checkedToolCalls: boolean;
}

/** Asks the constructor's patches, in their fixed order. */
export function askRunPatches(): RunPatches {
  const parsedShellGuard = patched(PARSED_SHELL_GUARD);
  const answersPerRequest = patched(ANSWERS_PER_REQUEST);
  const repliesPerTurn = patched(REPLIES_PER_TURN);
  const failuresByAction = patched(FAILURES_BY_ACTION);
  const tokensFromUsage = patched(TOKENS_FROM_USAGE);
  const checkedToolCalls = patched(CHECKED_TOOL_CALLS);
  return { parsedShellGuard, answersPerRequest, repliesPerTurn, failuresByAction, tokensFromUsage, checkedToolCalls };
}

/** The patch that lists MCP servers' tools at the start of a new run (issue 15). Asked only there (see listMcpTools). */
export const MCP_TOOLS = 'mcp-tools';

/** The patch that tells webhooks when a permission request opens (issue 15). Asked only there (see notifyHuman). */
export const NOTIFY_HUMAN = 'notify-human';

/** The patch that estimates the usage a provider did not report (issue 15). Asked only then (see ModelTurn). */
export const USAGE_ESTIMATES = 'usage-estimates';

/** The patch that reads the hooks at the start of a new run (issue 15). Asked only there (see readHooks). */
export const HOOKS = 'hooks';

/** The patch that reads the workspace's AGENTS.md at the start of a new run (issue 15). Asked only there (see readInstructions). */
export const PROJECT_INSTRUCTIONS = 'project-instructions';

/** The patch that reads the AGENTS.md of directories as the run first touches them (issue 15). Asked only then (see NestedInstructions). */
export const NESTED_INSTRUCTIONS = 'nested-instructions';

/** The patch that runs read_file, glob and grep as local activities (issue 16). Asked only there (see runToolActivity). */
export const LOCAL_READ_TOOLS = 'local-read-tools';

/** The patch that reads a new run's workspace settings side by side, as local activities where it can (issue 16). Asked only there (see readRunStart). */
export const RUN_START_TOGETHER = 'run-start-together';
