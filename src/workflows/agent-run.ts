import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  isCancellation,
  log,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { describeIssues, parseAgentRunInput, type AgentRunConfig, type AgentRunInput } from '../common/input';
import type { JobFinished } from '../common/jobs';
import type { SandboxRequest } from '../common/sandbox';
import { responseToMessage, type LLMResponse, type Message } from '../common/messages';
import { UserMessageInput, type AgentRunResult, type BudgetSnapshot, type RunStatus } from '../common/wire';
import { agentType, toolsFor } from '../loop/agent-types';
import { addUsage, budgetStopReason, checkBudget, countIteration, formatRemaining, type BudgetLimits } from '../loop/budget';
import { DEFAULT_COMPACTION, type CompactionOptions } from '../loop/compaction';
import { injectNotifications, notificationMessage } from '../loop/notifications';
import { checkPermission, createPolicy } from '../loop/permissions';
import { checkPermissionV1 } from '../loop/permissions-v1';
import { uniqueToolCallIds } from '../loop/tool-call-ids';
import { contextTokens, estimateContextTokens, type TokenAnchor } from '../loop/token-count';
import { classifyReply, createReplyState, EMPTY_REPLY_NUDGE, MAX_TRUNCATION_RECOVERIES } from '../loop/reply';
import type { StopReason } from '../loop/stop-reasons';
import './shell-quote-loader';
import { sandboxRequest } from './sandbox-request';
import { modelActivities } from './activity-proxies';
import { notifyParent } from './background-job';
import { compactHistory, type TokenCounting } from './compaction-step';
import { proposeCompletion, type CompletionContext } from './completion';
import { eventsQuery, messagesQuery, statusQuery, stepsQuery, userMessageSignal } from './definitions';
import { HumanChannel } from './human-channel';
import { JobBoard } from './job-board';
import { describeActivityFailure, invalidInput } from './run-failures';
import { CARRIED_STEPS, initialRunState, isRunState, type RunState } from './run-state';
import { stopFailure } from './run-stops';
import { RunReporter } from './run-reporter';
import { eventsSince } from './stream-events';
import { ToolRound } from './tool-round';
import { TranscriptSender } from './transcript';

/** One agent run: BareAgent's `agent_loop()` (seed 000) with the production loop of seed 003. */
export async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
  const parsed = parseAgentRunInput(input);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const { resume, ...config } = parsed.config;
  return new AgentRun(config, isRunState(resume) ? resume : undefined).run();
}

/** The patch that moved the guard from pattern lists to parsed commands (issue 12). */
const PARSED_SHELL_GUARD = 'parsed-shell-guard';
/** The patch that made permission answers per request and tool-call ids unique (issue 13). */
const ANSWERS_PER_REQUEST = 'answers-per-request';
/** The patch that made truncation recovery per turn and stopped taking an empty reply as the answer (issue 13). */
const REPLIES_PER_TURN = 'replies-per-turn';
/** The patch that counts repeated failures per action with a warning first (issue 13). */
const FAILURES_BY_ACTION = 'failures-by-action';
/** The patch that counts context tokens from the provider's usage, CJK-aware (issue 13). */
const TOKENS_FROM_USAGE = 'tokens-from-usage';
const TRUNCATION_RECOVERY_PROMPT =
  'Your previous reply was cut off by the output token limit. Continue exactly where it stopped; do not repeat what you already wrote.';
/** Stream entries kept across continue-as-new: a follower that is further behind than this catches up from history. */
const CARRIED_STREAM_ENTRIES = 2000;

class AgentRun {
  private readonly state: RunState;
  private readonly stream: WorkflowStream;
  private readonly report: RunReporter;
  private readonly board: JobBoard;
  private readonly tools: ToolRound;
  private readonly completion: CompletionContext;
  private readonly human: HumanChannel;
  private readonly policy;
  private readonly guard: typeof checkPermission;
  /** Each permission answer holds for its own request, and every tool call has an id of its own. */
  private readonly answersPerRequest: boolean;
  /** Truncation recovered per turn with the whole answer kept; an empty reply is not an answer. */
  private readonly repliesPerTurn: boolean;
  /** Repeated failures counted per action (tool and arguments), warned before the stop. */
  private readonly failuresByAction: boolean;
  /** Compaction counts tokens from the provider's usage plus a script-aware estimate. */
  private readonly tokensFromUsage: boolean;
  /** The provider's count for the history as last sent; valid while the history is that same array. */
  private tokenAnchor: (TokenAnchor & { array: Message[] }) | undefined;
  private readonly offered: ReadonlySet<string>;
  private readonly limits: BudgetLimits;
  private readonly compaction: CompactionOptions;
  private readonly sandbox: SandboxRequest;
  private readonly workflowId = workflowInfo().workflowId;
  private readonly transcript = new TranscriptSender(() => this.state.messages);

  constructor(
    private readonly config: Omit<AgentRunConfig, 'resume'>,
    carried: RunState | undefined,
  ) {
    this.state = carried ?? initialRunState(config.prompt, Date.now());
    this.stream = new WorkflowStream(carried?.stream);
    this.policy = createPolicy(config.permissionMode, config.permissionRules);
    // Runs that started under the pattern-list guard keep its decisions on replay; new runs parse commands.
    this.guard = patched(PARSED_SHELL_GUARD) ? checkPermission : checkPermissionV1;
    this.answersPerRequest = patched(ANSWERS_PER_REQUEST);
    this.repliesPerTurn = patched(REPLIES_PER_TURN);
    this.failuresByAction = patched(FAILURES_BY_ACTION);
    this.tokensFromUsage = patched(TOKENS_FROM_USAGE);
    const type = agentType(config.agentType);
    this.offered = new Set(config.tools ?? (type ? toolsFor(type, config.depth) : []));
    this.limits = { maxIterations: config.maxIterations, ...config.budgets };
    this.compaction = { ...DEFAULT_COMPACTION, ...config.compaction };
    this.sandbox = sandboxRequest(config);
    this.report = new RunReporter(this.stream, this.state, this.limits, config.maxIterations);
    this.human = new HumanChannel({
      config,
      workflowId: this.workflowId,
      publish: (event) => this.report.publish(event),
      setPhase: (phase) => this.report.setPhase(phase),
      attributes: this.report.attributes,
      recordStep: (reason, calls, detail) => this.report.recordStep(reason, this.report.budget(), 0, calls, detail),
      step: () => this.state.budget.iterations,
      forgetAnswers: this.answersPerRequest,
    });
    this.board = new JobBoard(carried?.jobs, (change) => this.human.onChildQuestion(change.question));
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
      failuresByAction: this.failuresByAction,
      stop: (reason, message, detail) => this.stop(reason, message, detail),
    });
    this.completion = { config, state: this.state, board: this.board, report: this.report, stop: (reason, message, detail) => this.stop(reason, message, detail) };
    setHandler(messagesQuery, () => this.state.messages);
    setHandler(stepsQuery, () => this.state.steps);
    setHandler(eventsQuery, (fromOffset = 0) => eventsSince(this.stream, fromOffset));
    setHandler(statusQuery, () => this.status());
    setHandler(userMessageSignal, (raw) => {
      const parsed = UserMessageInput.safeParse(raw);
      if (!parsed.success) log.warn(`userMessage signal ignored: ${describeIssues(parsed.error)}`);
      else this.state.followUps.push(parsed.data.text);
    });
  }

  async run(): Promise<AgentRunResult> {
    this.report.attributes.set({ status: 'running', waitingForHuman: false, ...(this.config.model ? { model: this.config.model } : {}) });
    try {
      const result = await this.loop();
      await this.end({ taskId: this.config.parent?.taskId ?? '', status: 'done', summary: result.text });
      return result;
    } catch (err) {
      // Continuing as new is not an end: the jobs, the parent and the followers carry on with the next run.
      if (err instanceof ContinueAsNew) throw err;
      const cancelled = isCancellation(err);
      await CancellationScope.nonCancellable(async () => {
        if (cancelled) this.report.recordStep('stop:cancelled', this.report.budget(), 0, [], 'cancelled by the user');
        else this.report.failed(err);
        const { type, message } = describeActivityFailure(err);
        await this.end({ taskId: this.config.parent?.taskId ?? '', status: cancelled ? 'cancelled' : 'failed', summary: `${type}: ${message}` });
      });
      throw err;
    }
  }

  private async loop(): Promise<AgentRunResult> {
    for (;;) {
      this.takeFollowUps();
      this.checkBudgets();
      const before = this.report.budget();
      this.state.budget = countIteration(this.state.budget);
      this.injectNotifications();
      await this.compact();
      const response = await this.callModel();
      if (this.answersPerRequest) response.toolCalls = uniqueToolCallIds(response.toolCalls, this.iteration);
      if (!response.streamed && response.text) this.report.publish({ type: 'text', step: this.iteration, attempt: 1, delta: response.text });
      if (this.repliesPerTurn) {
        const next = await this.takeReply(response, before);
        if (next === 'continue') continue;
        if (next !== 'tool_calls') return next;
        await this.tools.run(response.toolCalls, response.streamed, before);
        await this.continueAsNewIfSuggested();
        continue;
      }
      this.state.messages.push(responseToMessage(response));
      this.state.lastText = response.text;
      if (response.toolCalls.length === 0) {
        if (response.finishReason === 'length' && this.state.truncationRecoveries < MAX_TRUNCATION_RECOVERIES) {
          this.state.truncationRecoveries += 1;
          this.state.messages.push({ role: 'user', content: TRUNCATION_RECOVERY_PROMPT });
          this.report.recordStep('output_truncated', before, 0, [], `recovery ${this.state.truncationRecoveries} of ${MAX_TRUNCATION_RECOVERIES}`);
          continue;
        }
        const done = await proposeCompletion(this.completion, before);
        if (done) return done;
        continue;
      }
      await this.tools.run(response.toolCalls, response.streamed, before);
      await this.continueAsNewIfSuggested();
    }
  }

  /**
   * A reply in its turn (src/loop/reply.ts): a truncated piece is kept and recovered, an empty
   * reply is nudged once and never sent back to the provider, an answer is proposed whole.
   */
  private async takeReply(response: LLMResponse, before: BudgetSnapshot): Promise<'continue' | 'tool_calls' | AgentRunResult> {
    const seen = classifyReply(this.state.reply ?? createReplyState(), {
      text: response.text,
      toolCalls: response.toolCalls.length,
      finishReason: response.finishReason,
    });
    this.state.reply = seen.state;
    const { verdict } = seen;
    if (verdict.kind === 'empty_again') {
      throw this.stop('empty_reply', 'LLM call failed: EmptyReply: the model replied with no text and no tool call twice in a row', 'empty reply twice in a row');
    }
    if (verdict.kind === 'empty') {
      this.state.messages.push({ role: 'user', content: EMPTY_REPLY_NUDGE });
      this.report.recordStep('empty_reply', before, 0, [], 'the model replied with nothing: nudged once');
      return 'continue';
    }
    // An assistant message with neither text nor tool calls is invalid on the wire (OpenAI rejects it).
    if (response.text || response.toolCalls.length > 0) this.state.messages.push(responseToMessage(response));
    if (verdict.kind === 'tool_calls') {
      this.state.lastText = response.text;
      return 'tool_calls';
    }
    if (verdict.kind === 'truncated') {
      this.state.messages.push({ role: 'user', content: TRUNCATION_RECOVERY_PROMPT });
      this.report.recordStep('output_truncated', before, 0, [], `recovery ${verdict.recoveries} of ${MAX_TRUNCATION_RECOVERIES} in this turn`);
      return 'continue';
    }
    this.state.lastText = verdict.text;
    return (await proposeCompletion(this.completion, before)) ?? 'continue';
  }

  private get iteration(): number {
    return this.state.budget.iterations;
  }

  /** SPEC 3.5: follow-ups wait in a queue and start the next turn at a safe boundary. */
  private takeFollowUps(): boolean {
    if (this.state.followUps.length === 0) return false;
    const taken = this.state.followUps.splice(0);
    for (const text of taken) this.state.messages.push({ role: 'user', content: text });
    this.report.recordStep('follow_up_taken', this.report.budget(), 0, [], `${taken.length} follow-up(s)`);
    return true;
  }

  private checkBudgets(): void {
    const check = checkBudget(this.state.budget, this.limits, Date.now());
    if (check.kind === 'ok') return;
    const reason = budgetStopReason(check.budget);
    const message =
      check.budget === 'iterations'
        ? `Agent loop exceeded ${this.config.maxIterations} iterations`
        : `${check.budget.replace('_', '-')} budget spent: used ${formatUsed(check.budget, check.used)} of ${formatUsed(check.budget, check.limit)}`;
    throw this.stop(reason, message, `${check.budget}: used ${check.used} of ${check.limit}`);
  }

  private stop(reason: StopReason, message: string, detail: string): ApplicationFailure {
    const budget = this.report.budget();
    const record = this.report.recordStep(`stop:${reason}`, budget, 0, [], detail);
    return stopFailure(message, { reason, detail, budget, stepId: record.step_id });
  }

  /** Seed 000, step 1: finished jobs' notifications enter the history as one system message. */
  private injectNotifications(): void {
    const drained = this.board.drain();
    if (drained.length === 0) return;
    this.state.messages = injectNotifications(this.state.messages, drained);
    this.report.publish({ type: 'notification', step: this.iteration, text: notificationMessage(drained).content as string });
  }

  private async compact(): Promise<void> {
    const before = this.report.budget();
    const outcome = await compactHistory(
      this.state.messages,
      this.compaction,
      async (request) => {
        this.report.setPhase('compacting');
        const response = await this.modelCall(request, [], false, 'compaction summary');
        return response.text;
      },
      this.tokenCounting(),
    );
    if (outcome.kind === 'none') return;
    this.state.messages = outcome.messages;
    if (outcome.kind === 'summary_failed') {
      this.report.recordStep('compaction_failed', before, 0, [], `summary failed (${outcome.error}); history restored from the backup`);
      return;
    }
    this.report.recordStep(`compacted:${outcome.mode}`, before, 0, [], `context too long: ~${outcome.tokensBefore} → ~${outcome.tokensAfter} tokens`);
  }

  /**
   * Runs recorded before counted four characters a token; new runs take the provider's count of
   * what the last call sent and estimate only what came since (src/loop/token-count.ts).
   */
  private tokenCounting(): TokenCounting | undefined {
    if (!this.tokensFromUsage) return undefined;
    const anchor = this.tokenAnchor?.array === this.state.messages ? this.tokenAnchor : undefined;
    return { count: (messages) => contextTokens(messages, anchor), estimate: estimateContextTokens };
  }

  private async callModel(): Promise<LLMResponse> {
    this.report.setPhase('calling_model');
    this.report.publish({ type: 'model_call', step: this.iteration });
    try {
      const sent = this.state.messages;
      const sentCount = sent.length;
      const response = await this.modelCall(sent, [...this.offered], this.config.stream, `step ${this.iteration}`);
      this.tokenAnchor = { array: sent, sentCount, inputTokens: response.usage.inputTokens };
      return response;
    } catch (err) {
      if (isCancellation(err)) throw err;
      const { type, message } = describeActivityFailure(err);
      // Like every other stop: a last step record, and { reason, detail, budget, stepId } in the details.
      throw this.stop('provider_error', `LLM call failed: ${type}: ${message}`, `${type}: ${message}`.slice(0, 500));
    }
  }

  private async modelCall(messages: Message[], tools: string[], stream: boolean, purpose: string): Promise<LLMResponse> {
    const response = await modelActivities.callModel.executeWithOptions(
      { summary: `${this.config.model ?? 'default model'} · ${purpose}` },
      [
        {
          ...(this.config.model ? { model: this.config.model } : {}),
          ...(this.config.systemPrompt ? { systemPrompt: this.config.systemPrompt } : {}),
          ...this.transcript.requestFor(messages),
          tools,
          stream,
          step: this.iteration,
        },
      ],
    );
    this.state.budget = addUsage(this.state.budget, response.usage, response.model || this.config.model, this.config.prices);
    return response;
  }

  /**
   * DESIGN.md section 5: when Temporal suggests it, hand everything to a new run of the same
   * workflow id (messages, counters, budgets, detector, queues, jobs, the stream) once handlers finished.
   */
  private async continueAsNewIfSuggested(): Promise<void> {
    if (!workflowInfo().continueAsNewSuggested) return;
    this.report.recordStep('continue_as_new', this.report.budget(), 0, [], `history of ${workflowInfo().historyLength} events handed to a new run`);
    const end = this.stream.getState().base_offset + this.stream.getState().log.length;
    if (end > CARRIED_STREAM_ENTRIES) this.stream.truncate(end - CARRIED_STREAM_ENTRIES);
    await this.stream.continueAsNew<typeof agentRun>((streamState) => [
      {
        ...(this.config as AgentRunInput),
        resume: {
          ...this.state,
          steps: this.state.steps.slice(-CARRIED_STEPS),
          jobs: this.board.state(),
          stream: streamState,
          generation: this.state.generation + 1,
        } satisfies RunState,
      },
    ]);
  }

  private status(): RunStatus {
    return {
      phase: this.report.phase,
      iteration: this.iteration,
      maxIterations: this.config.maxIterations,
      pendingPermissions: [...this.human.pending(), ...this.board.pendingChildQuestions().map(({ open: _open, ...question }) => question)],
      backgroundJobs: this.board.list(),
      usage: { inputTokens: this.state.budget.inputTokens, outputTokens: this.state.budget.outputTokens },
      model: this.config.model ?? null,
      budgetLeft: formatRemaining(this.state.budget, this.limits, Date.now()),
      queuedFollowUps: this.state.followUps.length,
      sandbox: this.tools.sandboxStatus(),
    };
  }

  /**
   * However the run ends: its unfinished jobs are cancelled, a background subagent reports to its
   * parent, and followers parked on the stream get the last events before the run closes.
   */
  private async end(outcome: JobFinished): Promise<void> {
    await this.board.cancelAll();
    if (this.config.parent?.notify) await notifyParent(this.config.parent.workflowId, outcome);
    this.stream.detachPollers();
    await condition(allHandlersFinished);
  }
}

function formatUsed(budget: string, value: number): string {
  if (budget === 'cost') return `$${value.toFixed(4)}`;
  if (budget === 'wall_clock') return `${Math.round(value / 1000)}s`;
  return String(value);
}
