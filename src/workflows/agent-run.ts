import {
  allHandlersFinished,
  CancellationScope,
  condition,
  ContinueAsNew,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { parseAgentRunInput, type AgentRunConfig, type AgentRunInput } from '../common/input';
import type { JobFinished } from '../common/jobs';
import type { SandboxRequest } from '../common/sandbox';
import type { AgentRunResult, BudgetSnapshot } from '../common/wire';
import { agentType, toolsFor } from '../loop/agent-types';
import { countIteration, type BudgetLimits } from '../loop/budget';
import { budgetStop } from '../loop/budget-stop';
import { DEFAULT_COMPACTION } from '../loop/compaction';
import { injectNotifications, notificationMessage } from '../loop/notifications';
import { parseRule } from '../loop/permission-rules';
import { checkPermission, createPolicy } from '../loop/permissions';
import { guardSettingsFiles } from '../loop/settings-files';
import { uniqueToolCallIds } from '../loop/tool-call-ids';
import type { Stop, Transition } from '../loop/transitions';
import './shell-quote-loader';
import { sandboxRequest } from './sandbox-request';
import { notifyParent } from './background-job';
import { finish, proposeCompletion, waitAfter, type CompletionContext } from './completion';
import { startFromOrigin, showOrigin } from './fork-start';
import { handOver } from './hand-over';
import { HumanChannel } from './human-channel';
import { JobBoard } from './job-board';
import { ModelTurn } from './model-turn';
import { readNestedInstructionsAfter } from './project-instructions';
import { RunHooks } from './run-hooks';
import { readRunStart } from './run-start';
import { WORKSPACE_SETTINGS_REQUEST, WORKSPACE_SETTINGS_TOOL } from './workspace-settings';
import { startCheckpoints } from './checkpoints';
import { workspaceMoved } from './workspace-path';
import { takeReply } from './reply-step';
import { takeFinalAnswer } from './final-answer';
import { withMentionedFiles, type MentionContext } from './mentions';
import { describeActivityFailure, invalidInput } from './failures';
import { initialRunState, parseRunState, type RunState } from './run-state';
import { stopFailure } from './failures';
import { RunReporter } from './run-reporter';
import { setRunHandlers } from './run-handlers';
import { ToolRound } from './tool-round';
import { TreeBudget } from './tree-budget';
import { StallWatchdog } from './stall-watchdog';

/** The guard of a run: the permission check, and writes of settings and instruction files ask. */
const guardOfRun: typeof checkPermission = (policy, tool, input) => guardSettingsFiles(policy, tool, input, checkPermission(policy, tool, input));

/** One agent run: BareAgent's `agent_loop()` as a durable workflow (ARCHITECTURE.md, "The life of one iteration"). */
export async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
  const parsed = parseAgentRunInput(input);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const { resume, ...config } = parsed.config;
  if (resume === undefined) return new AgentRun(config, undefined).run();
  const carried = parseRunState(resume);
  if (!carried.ok) throw invalidInput(carried.message);
  return new AgentRun(config, carried.state).run();
}

class AgentRun {
  async run(): Promise<AgentRunResult> {
    this.report.attributes.set({ status: 'running', waitingForHuman: false, ...(this.config.model ? { model: this.config.model } : {}) });
    showOrigin(this.state, this.report);
    try {
      // Side by side: the run-start reads keep their one workflow task with the first model call.
      if (this.fresh) {
        await Promise.all([
          startCheckpoints(this.config, this.state, this.workflowId),
          readRunStart(this.config, this.sandbox, this.state, (input) => this.askAboutSettings(input)),
        ]);
        const moved = workspaceMoved(this.state);
        if (moved) throw invalidInput(moved);
      }
      // Only a fresh run loads its origin: after continue-as-new the conversation is carried.
      if (this.config.forkFrom && !this.carried) await startFromOrigin(this.config.forkFrom, this.config.prompt, this.config.workspace, this.state, this.report, { config: this.config, workflowId: this.workflowId });
      // The path a fork was authorised for is the one its tools use from now on (carried in the config across continue-as-new).
      if (this.state.workspacePath !== undefined) this.config.workspace = this.state.workspacePath;
      // The prompt's mentioned files, once: a run continued as new carries the message as it was sent.
      if (this.fresh) await this.attachToPrompt();
      const result = await this.watchedLoop();
      await this.end({ taskId: this.config.parent?.taskId ?? '', status: 'done', summary: result.text });
      return result;
    } catch (err) {
      // Continuing as new is not an end: the jobs, the parent and the followers carry on with the next run.
      if (err instanceof ContinueAsNew) throw err;
      const cancelled = isCancellation(err);
      await CancellationScope.nonCancellable(async () => {
        if (cancelled) this.report.record({ kind: 'stop', reason: 'cancelled', detail: 'cancelled by the user' }, this.report.budget());
        else this.report.failed(err);
        const { type, message } = describeActivityFailure(err);
        await this.end({ taskId: this.config.parent?.taskId ?? '', status: cancelled ? 'cancelled' : 'failed', summary: `${type}: ${message}` });
      });
      throw err;
    }
  }

  /**
   * The loop, under the stall watchdog when the run has a `stallTimeout`: a stall cancels what the
   * loop waits on (an activity no worker runs, a call that never returns) and ends the run with its stop.
   */
  private async watchedLoop(): Promise<AgentRunResult> {
    const watchdog = this.watchdog;
    if (!watchdog) return this.loop();
    const scope = new CancellationScope();
    let stall: Stop | undefined;
    watchdog.stalled().then(
      (stop) => {
        stall = stop;
        scope.cancel();
      },
      () => undefined, // the run itself was cancelled: the loop reports that
    );
    try {
      return await scope.run(() => this.loop());
    } catch (err) {
      if (stall && isCancellation(err)) return this.stopRun(stall, this.report.budget());
      throw err;
    }
  }

  /** The loop: each phase ends in a transition (src/loop/transitions.ts), recorded as one step; a stop ends the run. */
  private async loop(): Promise<AgentRunResult> {
    for (;;) {
      const taken = await this.takeFollowUps();
      if (taken) this.report.record(taken, this.report.budget());
      const ownBudget = budgetStop(this.state.budget, this.limits, this.config.maxIterations, Date.now());
      const overBudget = ownBudget ? this.tree.named(ownBudget) : await this.tree.stop(Date.now());
      if (overBudget) return this.stopRun(overBudget, this.report.budget());
      const before = this.report.budget();
      this.state.budget = countIteration(this.state.budget);
      this.injectNotifications();
      const compactedFrom = this.report.budget();
      const compacted = await this.model.compact();
      if (compacted) this.report.record(compacted, compactedFrom);
      const response = await this.model.call();
      if ('kind' in response) return this.stopRun(response, before);
      response.toolCalls = uniqueToolCallIds(response.toolCalls, this.iteration);
      if (!response.streamed && response.text) this.report.publish({ type: 'text', step: this.iteration, attempt: 1, delta: response.text });
      const classified = takeReply(this.state, response);
      // With the final answer as a tool, only a final_answer call answers; a text reply is a note.
      const { reply, calls, results } = this.config.finalAnswer === 'tool' ? takeFinalAnswer(this.state, response, classified) : { reply: classified, calls: response.toolCalls, results: [] };
      const transition =
        reply === 'tool_calls'
          ? await this.tools.run(calls, response.toolCallsShown ?? response.streamed, results)
          : reply === 'answer'
            ? await proposeCompletion(this.completion)
            : reply;
      const result = await this.settle(transition, before);
      if (result) return result;
      if (reply === 'tool_calls' && this.config.projectInstructions) await readNestedInstructionsAfter(calls, this.config, this.state);
      if (reply === 'tool_calls' && workflowInfo().continueAsNewSuggested && !this.childrenHoldHandOver()) {
        this.report.record({ kind: 'continue_as_new', historyLength: workflowInfo().historyLength }, this.report.budget());
        await handOver(this.stream, this.config, this.state, this.board);
      }
    }
  }

  /**
   * Jobs and subagents end with the run (parent close policy REQUEST_CANCEL), and the server
   * applies that policy on continue-as-new too: hand over only once none is running. Asked here,
   * not in the constructor, so that a run already under way when this shipped also waits for its new jobs.
   */
  private childrenHoldHandOver(): boolean {
    return this.board.blocksContinueAsNew();
  }

  /** One step record per transition; what follows a proposal (waiting for jobs, idle) comes after its record. */
  private async settle(transition: Transition, before: BudgetSnapshot): Promise<AgentRunResult | undefined> {
    if (transition.kind === 'stop') return this.stopRun(transition, before);
    this.report.record(transition, before);
    const next = await waitAfter(this.completion, transition);
    return next ? this.settle(next, before) : undefined;
  }

  /**
   * Where every stop the loop decides ends the run: a last step record, then the answer, or a
   * non-retryable failure with { reason, detail, budget, stepId } in its details.
   */
  private stopRun(stop: Stop, before: BudgetSnapshot): AgentRunResult {
    if (stop.reason === 'final_answer') {
      this.report.record(stop, before);
      return finish(this.completion);
    }
    const budget = this.report.budget();
    const record = this.report.record(stop, budget);
    throw stopFailure(stop.message ?? '', { reason: stop.reason, detail: stop.detail ?? '', budget, stepId: record.step_id });
  }

  private readonly state: RunState;
  private readonly stream: WorkflowStream;
  private readonly report: RunReporter;
  private readonly board: JobBoard;
  private readonly tools: ToolRound;
  private readonly model: ModelTurn;
  private readonly completion: CompletionContext;
  private readonly human: HumanChannel;
  private readonly tree: TreeBudget;
  private readonly watchdog: StallWatchdog | undefined;
  private readonly hooks: RunHooks;
  private readonly policy;
  private readonly guard: typeof checkPermission;
  private readonly offered: ReadonlySet<string>;
  private readonly limits: BudgetLimits;
  private readonly sandbox: SandboxRequest;
  private readonly workflowId = workflowInfo().workflowId;
  /** The first run of a conversation (not one continued as new): it does the run-start work. */
  private readonly fresh: boolean;

  constructor(
    private readonly config: Omit<AgentRunConfig, 'resume'>,
    private readonly carried: RunState | undefined,
  ) {
    this.state = carried ?? initialRunState(config.prompt, Date.now());
    this.fresh = carried === undefined;
    this.stream = new WorkflowStream(carried?.stream);
    const { allow = [], deny } = config.permissionRules;
    this.policy = createPolicy(config.permissionMode, { allow: [...allow, ...(this.state.sessionRules ?? [])], ...(deny ? { deny } : {}) });
    this.guard = guardOfRun;
    const type = agentType(config.agentType);
    this.offered = new Set(config.tools ?? (type ? toolsFor(type, config.depth) : []));
    this.limits = { maxIterations: config.maxIterations, ...config.budgets };
    this.sandbox = sandboxRequest(config);
    this.report = new RunReporter(this.stream, this.state, this.limits, config.maxIterations);
    this.watchdog = config.stallTimeout === undefined ? undefined : new StallWatchdog(config.stallTimeout, () => this.report.phase);
    if (this.watchdog) this.report.onStep = () => this.watchdog?.progressed();
    this.hooks = new RunHooks({
      config,
      hooks: () => this.state.hooks,
      sandbox: this.sandbox,
      workflowId: this.workflowId,
      record: (transition) => this.report.record(transition, this.report.budget()),
    });
    this.human = new HumanChannel({
      config,
      workflowId: this.workflowId,
      publish: (event) => this.report.publish(event),
      setPhase: (phase) => this.report.setPhase(phase),
      attributes: this.report.attributes,
      record: (transition) => this.report.record(transition, this.report.budget()),
      step: () => this.state.budget.iterations,
      waiting: (request) => this.hooks.waiting(request),
      allowForRun: (rule) => {
        this.state.sessionRules = [...(this.state.sessionRules ?? []), rule];
        this.policy.allow.push(parseRule(rule));
      },
    });
    this.board = new JobBoard(carried?.jobs, (change) => this.human.onChildQuestion(change.question));
    this.tree = new TreeBudget({ config, state: this.state, workflowId: this.workflowId, limits: this.limits });
    this.tools = new ToolRound({
      config,
      state: this.state,
      report: this.report,
      human: this.human,
      board: this.board,
      workflowId: this.workflowId,
      offered: this.offered,
      sandbox: this.sandbox,
      policy: this.policy,
      guard: this.guard,
      hooks: this.hooks,
      tree: this.tree,
      watchdog: this.watchdog,
    });
    this.model = new ModelTurn({
      config,
      state: this.state,
      report: this.report,
      offered: this.offered,
      compaction: { ...DEFAULT_COMPACTION, ...config.compaction },
      tree: this.tree,
    });
    this.completion = { config, state: this.state, board: this.board, report: this.report, hooks: this.hooks };
    setRunHandlers({ config, state: this.state, stream: this.stream, report: this.report, human: this.human, board: this.board, tools: this.tools, limits: this.limits, answeredModel: () => this.model.answeredModel });
  }

  private get iteration(): number {
    return this.state.budget.iterations;
  }

  /** The run-start question about the workspace's own settings: a pending permission request like any other. */
  private askAboutSettings(input: Record<string, unknown>): Promise<{ allowed: boolean; timedOut: boolean }> {
    const call = { id: WORKSPACE_SETTINGS_REQUEST, name: WORKSPACE_SETTINGS_TOOL, input };
    return this.human.answer(call, input, { behavior: 'ask', reason: 'the workspace brings hooks or MCP servers of its own' }, { forRun: false });
  }

  /** Follow-ups wait in a queue and start the next turn at a safe boundary: never in the middle of a tool round. */
  private async takeFollowUps(): Promise<Transition | undefined> {
    if (this.state.followUps.length === 0) return undefined;
    const taken = this.state.followUps.splice(0);
    for (const text of taken) this.state.messages.push({ role: 'user', content: await withMentionedFiles(text, this.mentions) });
    return { kind: 'follow_up_taken', count: taken.length };
  }

  /** The prompt's message (the first, or a fork's last) with the files it mentions attached. */
  private async attachToPrompt(): Promise<void> {
    const messages = this.state.messages;
    let index = messages.length - 1;
    while (index >= 0 && !(messages[index]?.role === 'user' && messages[index]?.content === this.config.prompt)) index -= 1;
    if (index < 0) return;
    const content = await withMentionedFiles(this.config.prompt, this.mentions);
    if (content !== this.config.prompt) this.state.messages[index] = { role: 'user', content };
  }

  private get mentions(): MentionContext {
    return { config: this.config, state: this.state, report: this.report, policy: this.policy, guard: this.guard, offered: this.offered };
  }

  /** Before each model call, finished jobs' notifications enter the history as one system message. */
  private injectNotifications(): void {
    const drained = this.board.drain();
    if (drained.length === 0) return;
    this.state.jobsFinished = true;
    this.state.messages = injectNotifications(this.state.messages, drained);
    this.report.publish({ type: 'notification', step: this.iteration, text: notificationMessage(drained).content as string });
  }

  /**
   * However the run ends: its unfinished jobs are cancelled, a background subagent reports to its
   * parent, and followers parked on the stream get the last events before the run closes.
   */
  private async end(outcome: JobFinished): Promise<void> {
    this.tree.close();
    await this.board.cancelAll();
    if (this.config.parent?.notify) await notifyParent(this.config.parent.workflowId, outcome);
    this.stream.detachPollers();
    await condition(allHandlersFinished);
  }
}
