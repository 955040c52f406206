import type { AgentRunConfig } from '../common/input';
import type { ToolCall, ToolResultBlock } from '../common/messages';
import { describeNetwork, type SandboxRequest } from '../common/sandbox';
import type { ToolArgs, ToolName } from '../common/tool-schemas';
import type { SandboxStatus } from '../common/wire';
import { acceptanceWriteRefusal } from '../loop/acceptance-files';
import { REPEATED_FAILURE_MESSAGE, editFailureNudge, isEditMiss, isReadOnlyRefusal, readOnlyFailureNudge } from '../loop/action-failures';
import { REPEATED_ACTION_MESSAGE } from '../loop/loop-detector';
import { checkNextNote, nothingNewNote, readNothingNew, wroteWithoutChecking } from '../loop/next-step';
import type { checkPermission, PermissionPolicy } from '../loop/permissions';
import { observeToolOutcome } from '../loop/tool-progress';
import { SHOWN_WHOLE, editedAway, filesSeen } from '../loop/tool-results';
import { canonicalPath } from '../loop/workspace-path';
import type { Transition } from '../loop/transitions';
import type { HumanChannel } from './human-channel';
import type { JobBoard } from './job-board';
import type { RunHooks } from './run-hooks';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';
import type { CheckpointRequest, CheckpointResult } from '../common/checkpoint';
import type { ToolCheckpoints } from '../common/events';
import { checkpointAfterRound, checkpointRequest, noteCheckpoint, startCheckpointDue, takeStartCheckpoint } from './checkpoints';
import { builtInTool } from './builtin-tools';
import { userToolKind } from './user-tools';
import { findMcpTool, mcpTool } from './mcp-tools';
import { dispatchToolCall, type ToolKind } from './tool-dispatch';
import { READ_ONLY_TOOLS } from '../common/tool-schemas';
import { toolDescriptor } from '../common/tool-descriptors';
import { idempotencyKey, MayHaveRunLog } from './may-have-run';
import type { TreeBudget } from './tree-budget';
import type { StallWatchdog } from './stall-watchdog';
import { backgroundRun, subagent } from './workflow-tools';
import { inheritedSettings } from './workspace-settings';
import type { ReadAheadResult } from '../common/read-ahead';
import { readAheadOutcome } from './read-ahead';
import { hooksFor } from '../loop/hook-decisions';

/** The grep a write's search for the lines still using a dropped name amounts to (src/activities/tools/name-users.ts). */
const WORKSPACE_GREP: ToolArgs<'grep'> = { pattern: '', path: '.', include: '' };

export interface ToolRoundContext {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  report: RunReporter;
  human: HumanChannel;
  board: JobBoard;
  workflowId: string;
  offered: ReadonlySet<string>;
  sandbox: SandboxRequest;
  policy: PermissionPolicy;
  guard: typeof checkPermission;
  hooks: RunHooks;
  tree: TreeBudget;
  /** The run's stall watchdog, when it has one: a subagent's time is not this run's stall. */
  watchdog?: StallWatchdog | undefined;
  /** Whether writes of the acceptance check's files are refused: false without such files, and for a run of 0.3.0 (`RunPatches`). */
  acceptanceFilesReadOnly: boolean;
}

/** The tool calls of one reply, run one after the other, and what they tell about progress. */
export class ToolRound {
  private readonly lost: MayHaveRunLog;
  /** Checkpoints the round's tool calls took themselves, by call id. */
  private inTool = new Map<string, CheckpointResult>();
  /** The snapshots just before and after each call that took its own, for its tool_result event. */
  private around = new Map<string, ToolCheckpoints>();
  /** The run's newest checkpoint when the round's first call took one: what the round's changes count from. */
  private roundStart: { tree: string | undefined } | undefined;
  /** The reads the round's model call ran ahead, by call id: each taken as its call's local activity would have run. */
  private readAhead: ReadonlyMap<string, ReadAheadResult> = new Map();
  /** The round under way: its calls and the results it has so far (what a cancelled turn keeps). */
  private underway: { calls: ToolCall[]; results: ToolResultBlock[] } | undefined;

  constructor(private readonly context: ToolRoundContext) {
    const { config, state, report, workflowId } = context;
    this.lost = new MayHaveRunLog({ state, report, workflowId, workspace: () => config.workspace, toolTaskQueue: config.toolTaskQueue });
  }

  /** `next_turn` (with the warning the round carries), or the stop a repeated action or failure calls for. */
  async run(calls: ToolCall[], alreadyShown: boolean, answered: ToolResultBlock[] = [], readAhead: ReadonlyMap<string, ReadAheadResult> = new Map()): Promise<Transition> {
    const { config, state, report, workflowId } = this.context;
    this.readAhead = readAhead;
    if (startCheckpointDue(state, { calls, jobsFinished: state.jobsFinished === true })) {
      // Step 0 belongs to the round: a stall while it is taken is a stall running tools.
      report.setPhase('running_tool');
      await takeStartCheckpoint(config, state, workflowId);
    }
    // Results the loop already gave (a final_answer not taken) share the round's one results message.
    const results: ToolResultBlock[] = [...answered];
    this.underway = { calls, results };
    let evidence = 0;
    let warned = false;
    let failureWarned = false;
    let failingEdit: { path: string; whole: boolean } | undefined;
    let failingReadOnly: string | undefined;
    for (let next = 0; next < calls.length; ) {
      // Consecutive read-only calls run at once (runs recorded before ran them one by one); their
      // results still enter the history, the stream and the loop detector in the reply's order.
      const reads = this.readOnlyRunAt(calls, next);
      const together = reads > 1;
      const batch = calls.slice(next, next + (together ? reads : 1));
      next += batch.length;
      const outcomes = await Promise.all(batch.map((call) => this.execute(call, alreadyShown)));
      for (const [i, call] of batch.entries()) {
        const result = outcomes[i] as ToolResultBlock;
        const around = this.around.get(call.id);
        report.publish({ type: 'tool_result', step: state.budget.iterations, id: call.id, name: call.name, isError: result.is_error, preview: result.content.slice(0, 300), ...(around ? { checkpoint: around } : {}) });
        results.push(result);
        const seen = observeToolOutcome(
          state,
          { name: call.name, input: call.input, content: result.content, isError: result.is_error, step: state.budget.iterations },
          { limits: config.repeatedFailure },
        );
        state.loopDetector = seen.state.loopDetector;
        state.failureStreak = seen.state.failureStreak;
        if (seen.newEvidence) evidence += 1;
        if (seen.actionWarned) warned = true;
        if (seen.failureWarned) failureWarned = true;
        const path = (call.input as { file_path?: unknown } | null)?.file_path;
        if ((seen.failureWarned || seen.actionWarned) && result.is_error && typeof path === 'string') {
          if (isReadOnlyRefusal(result.content)) failingReadOnly = path;
          else if (call.name === 'edit_file' && isEditMiss(result.content)) failingEdit = { path, whole: SHOWN_WHOLE.test(result.content) };
        }
        if (seen.stop) {
          state.messages.push({ role: 'user', content: results });
          this.underway = undefined;
          this.lost.record();
          await this.checkpoint(calls);
          return { kind: 'stop', ...seen.stop };
        }
      }
    }
    // The third repeat without new evidence gets a nudge, inside the same tool round (src/loop/loop-detector.ts);
    // a round that wrote a file, in a run with an acceptance check, is told to run it; one that read nothing new, to answer (src/loop/next-step.ts).
    const nudges = [
      ...(failureWarned ? [REPEATED_FAILURE_MESSAGE] : warned ? [REPEATED_ACTION_MESSAGE] : []),
      ...(failingReadOnly !== undefined ? [readOnlyFailureNudge(failingReadOnly)] : failingEdit ? [editFailureNudge(failingEdit.path, failingEdit.whole)] : []),
      ...(config.acceptance && this.context.offered.has('bash') && wroteWithoutChecking(calls, results) ? [checkNextNote(config.acceptance.command)] : []),
      ...(!warned && !failureWarned && readNothingNew(calls, results, evidence) ? [nothingNewNote(config.finalAnswer === 'tool')] : []),
    ];
    const content: Array<ToolResultBlock | { type: 'text'; text: string }> = [...results, ...nudges.map((text) => ({ type: 'text' as const, text }))];
    state.messages.push({ role: 'user', content: nudges.length > 0 ? content : results });
    this.underway = undefined;
    this.lost.record();
    const ranCommands = calls.some((call) => toolDescriptor(call.name)?.commandArgument !== undefined);
    await this.checkpoint(calls);
    return {
      kind: 'next_turn',
      ...(failureWarned ? { warned: 'repeated_failure' } : warned ? { warned: 'repeated_action' } : {}),
      calls,
      evidence,
      ...(ranCommands ? { sandbox: this.sandboxLine() } : {}),
    };
  }

  /**
   * The round a cancelled turn stopped, if it was in one: the results its calls gave before the
   * cancel (the others get a cancelled result from the loop). Taken once.
   */
  takeInterrupted(): { calls: ToolCall[]; results: ToolResultBlock[] } | undefined {
    const round = this.underway;
    this.underway = undefined;
    return round;
  }

  /** After a cancelled round: the workspace as its calls left it, on the next step record, like a round's own. */
  async checkpointInterrupted(calls: ToolCall[]): Promise<void> {
    this.lost.record();
    await this.checkpoint(calls);
  }

  /** How many calls from `at` on are read-only (built-in or MCP tools whose effect is `read`), one after another. */
  private readOnlyRunAt(calls: ToolCall[], at: number): number {
    let count = 0;
    for (const call of calls.slice(at)) {
      if (this.kindOf(call)?.effect !== 'read') break;
      count += 1;
    }
    return count;
  }

  /** One call through the tool pipeline; its result, not yet recorded. */
  private async execute(call: ToolCall, alreadyShown: boolean): Promise<ToolResultBlock> {
    const { state, report } = this.context;
    if (!alreadyShown) report.publish({ type: 'tool_call', step: state.budget.iterations, id: call.id, name: call.name, input: call.input });
    report.setPhase('running_tool');
    return dispatchToolCall(call, this.kindOf(call), {
      askHuman: (c, args, decision) => this.context.human.ask(c, args, decision),
      hooks: this.context.hooks,
      atMostOnceFailed: (c, summary, startedAt, err) => this.lost.failed(c, summary, startedAt, err),
      onCheckpoint: (c, taken) => {
        this.inTool.set(c.id, taken);
        const before = state.checkpoints?.last;
        if (taken.ok && before) this.around.set(c.id, { before, after: taken.id });
        noteCheckpoint(state, taken);
      },
      observeSandbox: (kind) => {
        state.sandboxKind = kind;
      },
      refusal: (c, args) => this.acceptanceRefusal(c, args),
    });
  }

  /** A file tool's write of a file the acceptance command names: refused in every mode (src/loop/acceptance-files.ts). */
  private acceptanceRefusal(call: ToolCall, args: unknown): string | undefined {
    const { config, sandbox, acceptanceFilesReadOnly } = this.context;
    if (!acceptanceFilesReadOnly) return undefined;
    return acceptanceWriteRefusal(sandbox.readOnlyFiles ?? [], config.acceptance?.command, call.name, args);
  }

  /** The tool a call names: an MCP tool of the run's listing, else a built-in one or one of the worker's own that the run offers. */
  private kindOf(call: ToolCall): ToolKind | undefined {
    const { config, state, sandbox, policy } = this.context;
    const callKey = idempotencyKey(this.context.workflowId, call.id);
    const mcp = findMcpTool(state.mcp, call.name);
    if (mcp) return mcpTool(mcp, { config, sandbox, policy, callKey, checkpointRequest: () => this.checkpointRequest() });
    const own = userToolKind(call.name, { workspace: config.workspace, offered: this.context.offered, policy, guard: this.context.guard, callKey, checkpointRequest: () => this.checkpointRequest() });
    if (own) return own;
    return builtInTool(call.name, {
      workspace: config.workspace,
      toolTaskQueue: config.toolTaskQueue,
      sandbox,
      offered: this.context.offered,
      policy,
      guard: this.context.guard,
      runWorkflowTool: (name, args) => this.runWorkflowTool(name, args),
      // A file attached to a message counts as read: its numbered text is in the conversation.
      fileRead: (path) => filesSeen(state.messages, call.id).has(canonicalPath(path)) || (state.attachments ?? []).some((a) => a.kind === 'file' && canonicalPath(a.path) === canonicalPath(path)),
      changedByEarlierEdit: (path, oldText) => editedAway(state.messages, canonicalPath(path), oldText, call.id),
      // The search a write's result may make is a grep of the workspace: only where the run would let one run unasked.
      searchUsers: this.context.offered.has('grep') && this.context.guard(policy, 'grep', WORKSPACE_GREP).behavior === 'allow' && hooksFor(state.hooks?.hooks, 'PreToolUse').length === 0,
      readAhead: (input) => readAheadOutcome(this.readAhead.get(call.id), input),
      callKey,
      checkpointRequest: () => this.checkpointRequest(),
    });
  }

  /**
   * The checkpoint a write_file, edit_file or bash activity takes right after it ran, returned
   * with its result: no local activity after the round. None while a job runs or once one finished
   * (its changes want the round's own scan), or for runs without checkpoints.
   */
  private checkpointRequest(): CheckpointRequest | undefined {
    const { config, state, report, workflowId, board } = this.context;
    const checkpoints = state.checkpoints;
    if (!checkpoints || checkpoints.pending || state.jobsFinished || board.hasRunning()) return undefined;
    this.roundStart ??= { tree: checkpoints.last };
    return checkpointRequest(config, state, workflowId, `step ${report.nextStepId()}`, checkpoints.deny, { since: this.roundStart.tree });
  }

  /**
   * The workspace after the round, on the record of the step the round ends: the checkpoint the
   * round's last writing call took, when every call that may write took one (nothing else ran
   * that could change files); else a checkpoint of its own after the round.
   */
  private async checkpoint(calls: ToolCall[]): Promise<void> {
    const { config, state, report, workflowId } = this.context;
    const mcp = calls.some((call) => findMcpTool(state.mcp, call.name) !== undefined);
    const jobsRunning = this.context.board.hasRunning();
    const writing = calls.filter((call) => !READ_ONLY_TOOLS.has(call.name));
    const jobsFinished = state.jobsFinished === true;
    // An MCP call's activity takes its checkpoint too (a scan); one recorded before that did not, and
    // its round takes one after it, as it did then.
    const covered = this.inTool.size > 0 && !jobsFinished && !jobsRunning && writing.length > 0 && writing.every((call) => this.inTool.has(call.id));
    let mark: Awaited<ReturnType<typeof checkpointAfterRound>>;
    if (covered) {
      const taken = this.inTool.get(writing.at(-1)!.id)!;
      mark = taken.ok ? { id: taken.id, changed: taken.changed } : { error: taken.error };
    } else {
      mark = await checkpointAfterRound(config, state, workflowId, { calls, jobsFinished, jobsRunning, mcp, step: report.nextStepId(), ...(this.roundStart ? { since: this.roundStart.tree } : {}) });
    }
    this.inTool = new Map();
    this.around = new Map();
    this.roundStart = undefined;
    if (mark) delete state.jobsFinished;
    report.attachCheckpoint(mark);
  }

  sandboxStatus(): SandboxStatus {
    const { sandbox, state } = this.context;
    return {
      network: describeNetwork(sandbox.network),
      workspace: sandbox.writableWorkspace ? 'read-write' : 'read-only',
      readOnlyPaths: sandbox.readOnlyPaths,
      enforcement: state.sandboxKind ?? 'no command run yet',
    };
  }

  /** `network none · workspace read-write · bubblewrap`: what a step's commands could reach. */
  private sandboxLine(): string {
    const status = this.sandboxStatus();
    return `network ${status.network} · workspace ${status.workspace} · ${status.enforcement}`;
  }

  private runWorkflowTool(name: ToolName, args: unknown) {
    const context = { board: this.context.board, tree: this.context.tree, config: this.context.config, workflowId: this.context.workflowId, settings: inheritedSettings(this.context.state), watchdog: this.context.watchdog };
    if (name === 'background_run') return backgroundRun(args as ToolArgs<'background_run'>, context);
    return subagent(args as ToolArgs<'subagent'>, context);
  }
}
