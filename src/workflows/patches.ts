import { deprecatePatch, patched } from '@temporalio/workflow';

/**
 * The `patched()` ids of the agent run; `src/common/patch-ledger.ts` says when each shipped, what its
 * old branch keeps, and whether that branch may go yet.
 */

/**
 * The constructor's patches, retired (`deprecated` in the ledger): every run takes their new branch,
 * and their markers are still written in their old order, so workers of an older build replay new
 * runs. A patch marker is a history event: moving these calls changes what replays.
 */
const RETIRED_AT_START = ['parsed-shell-guard', 'answers-per-request', 'replies-per-turn', 'failures-by-action', 'tokens-from-usage'] as const;

export function markRetiredPatches(): void {
  for (const id of RETIRED_AT_START) deprecatePatch(id);
}

/**
 * The patch that holds continue-as-new while children run, since they end with the run.
 * Asked at the hand-over, only while a child runs (see AgentRun.childrenHoldHandOver).
 */
export const CHILDREN_END_WITH_RUN = 'children-end-with-run';

/**
 * The patch after which a model call's lost workers no longer count against its four provider
 * attempts (unlimited activity attempts; the activity counts provider failures itself), nor a
 * repeatable MCP call's. Asked in the constructor, after the others: asked at the first model
 * call, its marker shared a workflow task with the run-start local activities, and a query's
 * replay of such a run once failed under load.
 */
export const WORKER_LOSSES_UNCOUNTED = 'worker-losses-uncounted';

/**
 * The patch that checks tool calls before they run: a blank `command` or `file_path` is an invalid
 * argument, "allow always" on a blank argument derives no rule, and a run keeps at most its
 * `concurrency` of background jobs and of background subagents running at once. Runs recorded
 * before it ran blank calls, could allow a bare tool for the run, and started any number of jobs.
 */
export const CHECKED_TOOL_CALLS = 'checked-tool-calls';

/** The patch that lists MCP servers' tools at the start of a new run. Asked only there (see listMcpTools). */
export const MCP_TOOLS = 'mcp-tools';

/** The patch that tells webhooks when a permission request opens. Asked only there (see notifyHuman). */
export const NOTIFY_HUMAN = 'notify-human';

/** The patch that estimates the usage a provider did not report. Asked only then (see ModelTurn). */
export const USAGE_ESTIMATES = 'usage-estimates';

/** The patch that reads the hooks at the start of a new run. Asked only there (see readHooks). */
export const HOOKS = 'hooks';

/** The patch that reads the workspace's AGENTS.md at the start of a new run. Asked only there (see readInstructions). */
export const PROJECT_INSTRUCTIONS = 'project-instructions';

/** The patch that reads the AGENTS.md of directories as the run first touches them. Asked only then (see NestedInstructions). */
export const NESTED_INSTRUCTIONS = 'nested-instructions';

/** The patch that runs read_file, glob and grep as local activities. Asked only there (see runToolActivity). */
export const LOCAL_READ_TOOLS = 'local-read-tools';

/** The patch that reads a new run's workspace settings side by side, as local activities where it can. Asked only there (see readRunStart). */
export const RUN_START_TOGETHER = 'run-start-together';

/**
 * The patch that makes a top-level run's workspace settings (hooks, MCP servers) a snapshot read
 * once at its start, with each file's hash, asked about when the workspace brings its own, and
 * handed to subagents through their input. Asked only there (see readRunStart).
 */
export const SETTINGS_SNAPSHOT = 'workspace-settings-snapshot';

/** The patch that makes writes and edits of `.bareagent/` and AGENTS.md/CLAUDE.md ask in `default` and `auto`. */
export const GUARDED_SETTINGS_FILES = 'guarded-settings-files';
/** The patch that runs PreToolUse hooks only for calls the guard (or a human) let through, never for unknown tools. */
export const HOOKS_AFTER_GUARD = 'hooks-after-guard';

/** What a run does the new way; false only where it replays a history recorded before that patch. */
export interface RunPatches {
  /** Writes of settings and instruction files ask; runs recorded before let edit_file through. */
  guardedSettingsFiles: boolean;
  /** PreToolUse hooks run after the guard; runs recorded before ran them first, for every call. */
  hooksAfterGuard: boolean;
  /** Lost workers do not count against a model call's (or a repeatable MCP call's) attempts. */
  workerLossesUncounted: boolean;
  /** Blank arguments refused, no rule derived from them, jobs and subagents bounded per run. */
  checkedToolCalls: boolean;
}

/**
 * Asked once, in the AgentRun constructor right after the retired markers, in this order. Each
 * recorded history holds a subsequence of them in this order, so each replays.
 */
export function askRunPatches(): RunPatches {
  const guardedSettingsFiles = patched(GUARDED_SETTINGS_FILES);
  const hooksAfterGuard = patched(HOOKS_AFTER_GUARD);
  const workerLossesUncounted = patched(WORKER_LOSSES_UNCOUNTED);
  const checkedToolCalls = patched(CHECKED_TOOL_CALLS);
  return { guardedSettingsFiles, hooksAfterGuard, workerLossesUncounted, checkedToolCalls };
}

/**
 * The patch that reads a new run's environment (workspace listing, OS) at its start and sends the
 * default system prompt built from it. Runs recorded before keep replaying with no default prompt.
 * Asked only there (see readEnvironment).
 */
export const DEFAULT_SYSTEM_PROMPT = 'default-system-prompt';


/**
 * The patch that makes an at-most-once call lost with its worker visible: a look at what changed
 * in the workspace, a `may_have_run` step and an entry in `status`. Asked only when such a call's
 * worker was lost (see MayHaveRunLog); runs recorded before only got the error result.
 */
export const MAY_HAVE_RUN = 'may-have-run';

/**
 * The patch after which a run and its subagents share one token and cost budget: a subagent gets
 * at most what is left and reports its spend to the tree's root. Asked when a subagent starts
 * (see TreeBudget.forChild); runs recorded before gave each subagent a budget of its own.
 */
export const TREE_BUDGET = 'tree-budget';
/**
 * The patch that takes a round's checkpoint inside its write_file, edit_file and bash activities
 * (returned with the result) instead of a local activity after the round. Asked before each such
 * call of a run with checkpoints (see ToolRound.checkpointRequest); runs recorded before took the
 * local activity after every round that may have changed files.
 */
export const CHECKPOINT_IN_TOOL = 'checkpoint-in-tool';

/** The patch that snapshots the workspace at run start and after each tool round that may change it. Asked only at run start (see startCheckpoints). */
export const WORKSPACE_CHECKPOINTS = 'workspace-checkpoints';

/**
 * The patch that runs a reply's consecutive read-only calls (read_file, glob, grep, read-only MCP
 * tools) at once. Asked only for a reply with two or more in a row (see ToolRound.run); runs
 * recorded before ran every call one after another.
 */
export const PARALLEL_READ_ONLY_CALLS = 'parallel-read-only-calls';

/**
 * The patch that upserts the `BareAgentIterations` search attribute at the first iteration, every
 * tenth and with each status change, instead of every iteration (an upsert is a history event and
 * a visibility write). Asked once, when the run's reporter is made; runs recorded before upserted
 * it every iteration.
 */
export const SPARSE_ITERATION_ATTRIBUTE = 'sparse-iteration-attribute';
