import {
  allHandlersFinished,
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
import type { Stop, Transition } from '../loop/transitions';
import './shell-quote-loader';
import { sandboxRequest } from './sandbox-request';
import { modelActivities } from './activity-proxies';
import { notifyParent } from './background-job';
import { compactHistory, type TokenCounting } from './compaction-step';
import { finish, proposeCompletion, waitAfter, type CompletionContext } from './completion';
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
      record: (transition) => this.report.record(transition, this.report.budget()),
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
    });
    this.completion = { config, state: this.state, board: this.board, report: this.report };
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
        if (cancelled) this.report.record({ kind: 'stop', reason: 'cancelled', detail: 'cancelled by the user' }, this.report.budget());
        else this.report.failed(err);
        const { type, message } = describeActivityFailure(err);
        await this.end({ taskId: this.config.parent?.taskId ?? '', status: cancelled ? 'cancelled' : 'failed', summary: `${type}: ${message}` });
      });
      throw err;
    }
  }

  /** Seed 000's loop: each phase ends in a transition (src/loop/transitions.ts), recorded as one step; a stop ends the run. */
  private async loop(): Promise<AgentRunResult> {
    for (;;) {
      const taken = this.takeFollowUps();
      if (taken) this.report.record(taken, this.report.budget());
      const overBudget = this.checkBudgets();
      if (overBudget) return this.stopRun(overBudget, this.report.budget());
      const before = this.report.budget();
      this.state.budget = countIteration(this.state.budget);
      this.injectNotifications();
      const compactedFrom = this.report.budget();
      const compacted = await this.compact();
      if (compacted) this.report.record(compacted, compactedFrom);
      const response = await this.callModel();
      if ('kind' in response) return this.stopRun(response, before);
      if (this.answersPerRequest) response.toolCalls = uniqueToolCallIds(response.toolCalls, this.iteration);
      if (!response.streamed && response.text) this.report.publish({ type: 'text', step: this.iteration, attempt: 1, delta: response.text });
      const reply = this.repliesPerTurn ? this.takeReply(response) : this.takeReplyV1(response);
      const transition =
        reply === 'tool_calls'
          ? await this.tools.run(response.toolCalls, response.streamed)
          : reply === 'answer'
            ? await proposeCompletion(this.completion)
            : reply;
      const result = await this.settle(transition, before);
      if (result) return result;
      if (reply === 'tool_calls' && workflowInfo().continueAsNewSuggested) {
        this.report.record({ kind: 'continue_as_new', historyLength: workflowInfo().historyLength }, this.report.budget());
        await this.continueAsNew();
      }
    }
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

  /**
   * A reply in its turn (src/loop/reply.ts): a truncated piece is kept and recovered, an empty
   * reply is nudged once and never sent back to the provider, an answer is proposed whole.
   */
  private takeReply(response: LLMResponse): Transition | 'tool_calls' | 'answer' {
    const seen = classifyReply(this.state.reply ?? createReplyState(), {
      text: response.text,
      toolCalls: response.toolCalls.length,
      finishReason: response.finishReason,
    });
    this.state.reply = seen.state;
    const { verdict } = seen;
    if (verdict.kind === 'empty_again') {
      const message = 'LLM call failed: EmptyReply: the model replied with no text and no tool call twice in a row';
      return { kind: 'stop', reason: 'empty_reply', message, detail: 'empty reply twice in a row' };
    }
    if (verdict.kind === 'empty') {
      this.state.messages.push({ role: 'user', content: EMPTY_REPLY_NUDGE });
      return { kind: 'empty_reply' };
    }
    // An assistant message with neither text nor tool calls is invalid on the wire (OpenAI rejects it).
    if (response.text || response.toolCalls.length > 0) this.state.messages.push(responseToMessage(response));
    if (verdict.kind === 'tool_calls') {
      this.state.lastText = response.text;
      return 'tool_calls';
    }
    if (verdict.kind === 'truncated') {
      this.state.messages.push({ role: 'user', content: TRUNCATION_RECOVERY_PROMPT });
      return { kind: 'output_truncated', recoveries: verdict.recoveries, perTurn: true };
    }
    this.state.lastText = verdict.text;
    return 'answer';
  }

  /** Runs recorded before replies were per turn: three recoveries a run, and any reply is kept. */
  private takeReplyV1(response: LLMResponse): Transition | 'tool_calls' | 'answer' {
    this.state.messages.push(responseToMessage(response));
    this.state.lastText = response.text;
    if (response.toolCalls.length > 0) return 'tool_calls';
    if (response.finishReason === 'length' && this.state.truncationRecoveries < MAX_TRUNCATION_RECOVERIES) {
      this.state.truncationRecoveries += 1;
      this.state.messages.push({ role: 'user', content: TRUNCATION_RECOVERY_PROMPT });
      return { kind: 'output_truncated', recoveries: this.state.truncationRecoveries };
    }
    return 'answer';
  }

  private get iteration(): number {
    return this.state.budget.iterations;
  }

  /** SPEC 3.5: follow-ups wait in a queue and start the next turn at a safe boundary. */
  private takeFollowUps(): Transition | undefined {
    if (this.state.followUps.length === 0) return undefined;
    const taken = this.state.followUps.splice(0);
    for (const text of taken) this.state.messages.push({ role: 'user', content: text });
    return { kind: 'follow_up_taken', count: taken.length };
  }

  private checkBudgets(): Stop | undefined {
    const check = checkBudget(this.state.budget, this.limits, Date.now());
    if (check.kind === 'ok') return undefined;
    const message =
      check.budget === 'iterations'
        ? `Agent loop exceeded ${this.config.maxIterations} iterations`
        : `${check.budget.replace('_', '-')} budget spent: used ${formatUsed(check.budget, check.used)} of ${formatUsed(check.budget, check.limit)}`;
    return { kind: 'stop', reason: budgetStopReason(check.budget), message, detail: `${check.budget}: used ${check.used} of ${check.limit}` };
  }

  /** Seed 000, step 1: finished jobs' notifications enter the history as one system message. */
  private injectNotifications(): void {
    const drained = this.board.drain();
    if (drained.length === 0) return;
    this.state.messages = injectNotifications(this.state.messages, drained);
    this.report.publish({ type: 'notification', step: this.iteration, text: notificationMessage(drained).content as string });
  }

  private async compact(): Promise<Transition | undefined> {
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
    if (outcome.kind === 'none') return undefined;
    this.state.messages = outcome.messages;
    if (outcome.kind === 'summary_failed') return { kind: 'compaction_failed', error: outcome.error };
    return { kind: 'compacted', mode: outcome.mode, tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter };
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

  private async callModel(): Promise<LLMResponse | Stop> {
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
      return { kind: 'stop', reason: 'provider_error', message: `LLM call failed: ${type}: ${message}`, detail: `${type}: ${message}`.slice(0, 500) };
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
  private async continueAsNew(): Promise<void> {
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
