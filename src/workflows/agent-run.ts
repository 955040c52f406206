import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { EVENTS_TOPIC, type RunEvent } from '../common/events';
import { describeIssues, parseAgentRunInput, type AgentRunConfig, type AgentRunInput } from '../common/input';
import type { JobFinished } from '../common/jobs';
import { describeNetwork, type SandboxKind, type SandboxRequest } from '../common/sandbox';
import { responseToMessage, type LLMResponse, type Message, type ToolCall, type ToolResultBlock } from '../common/messages';
import { type ToolArgs, type ToolName } from '../common/tool-schemas';
import { UserMessageInput, type AgentRunResult, type BudgetSnapshot, type RunPhase, type RunStatus, type SandboxStatus } from '../common/wire';
import type { ModelRequest } from '../activities/model/model-request';
import { agentType, toolsFor } from '../loop/agent-types';
import { addUsage, budgetStopReason, checkBudget, countIteration, formatRemaining, type BudgetLimits } from '../loop/budget';
import { DEFAULT_COMPACTION, type CompactionOptions } from '../loop/compaction';
import { durationToMs } from '../loop/duration';
import { createFailureStreak, errorKindOf, observeFailure } from '../loop/failure-streak';
import { actionFingerprint, evidenceHash } from '../loop/fingerprint';
import { observe, REPEATED_ACTION_MESSAGE } from '../loop/loop-detector';
import { injectNotifications, notificationMessage } from '../loop/notifications';
import { checkPermission, createPolicy, type PermissionDecision } from '../loop/permissions';
import { checkPermissionV1 } from '../loop/permissions-v1';
import { uniqueToolCallIds } from '../loop/tool-call-ids';
import { contextTokens, estimateContextTokens, type TokenAnchor } from '../loop/token-count';
import { observeActionFailure, REPEATED_FAILURE_MESSAGE } from '../loop/action-failures';
import { classifyReply, createReplyState, EMPTY_REPLY_NUDGE, MAX_TRUNCATION_RECOVERIES } from '../loop/reply';
import { budgetSnapshot, stepRecord } from '../loop/steps';
import type { StopReason } from '../loop/stop-reasons';
import { runAcceptance } from './acceptance';
import './shell-quote-loader';
import { sandboxRequest } from './sandbox-request';
import { modelActivities } from './activity-proxies';
import { notifyParent } from './background-job';
import { compactHistory, type TokenCounting } from './compaction-step';
import { eventsQuery, messagesQuery, statusQuery, stepsQuery, userMessageSignal } from './definitions';
import { HumanChannel } from './human-channel';
import { JobBoard } from './job-board';
import { describeActivityFailure, invalidInput } from './run-failures';
import { CARRIED_STEPS, initialRunState, isRunState, type RunState } from './run-state';
import { stopFailure } from './run-stops';
import { RunAttributes } from './search-attribute-keys';
import { eventsSince } from './stream-events';
import { dispatchToolCall } from './tool-dispatch';
import { backgroundRun, subagent } from './workflow-tools';

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
/** The patch that holds continue-as-new while children run, since they end with the run (issue 13). */
const CHILDREN_END_WITH_RUN = 'children-end-with-run';
const TRUNCATION_RECOVERY_PROMPT =
  'Your previous reply was cut off by the output token limit. Continue exactly where it stopped; do not repeat what you already wrote.';
/** Stream entries kept across continue-as-new: a follower that is further behind than this catches up from history. */
const CARRIED_STREAM_ENTRIES = 2000;

class AgentRun {
  private readonly state: RunState;
  private phase: RunPhase = 'starting';
  private readonly stream: WorkflowStream;
  private readonly events;
  private readonly attributes = new RunAttributes();
  private readonly board: JobBoard;
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
  /** How the worker confined the last command; unknown until one ran. */
  private sandboxKind: SandboxKind | undefined;
  private readonly workflowId = workflowInfo().workflowId;
  private sent: { array: Message[] | undefined; count: number; epoch: number } = { array: undefined, count: 0, epoch: 0 };

  constructor(
    private readonly config: Omit<AgentRunConfig, 'resume'>,
    carried: RunState | undefined,
  ) {
    this.state = carried ?? initialRunState(config.prompt, Date.now());
    this.stream = new WorkflowStream(carried?.stream);
    this.events = this.stream.topic<RunEvent>(EVENTS_TOPIC);
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
    this.human = new HumanChannel({
      config,
      workflowId: this.workflowId,
      publish: (event) => this.publish(event),
      setPhase: (phase) => this.setPhase(phase),
      attributes: this.attributes,
      recordStep: (reason, calls, detail) => this.recordStep(reason, this.budget(), 0, calls, detail),
      step: () => this.state.budget.iterations,
      forgetAnswers: this.answersPerRequest,
    });
    this.board = new JobBoard(carried?.jobs, (change) => this.human.onChildQuestion(change.question));
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
    this.attributes.set({ status: 'running', waitingForHuman: false, ...(this.config.model ? { model: this.config.model } : {}) });
    try {
      const result = await this.loop();
      await this.end({ taskId: this.config.parent?.taskId ?? '', status: 'done', summary: result.text });
      return result;
    } catch (err) {
      // Continuing as new is not an end: the jobs, the parent and the followers carry on with the next run.
      if (err instanceof ContinueAsNew) throw err;
      const cancelled = isCancellation(err);
      await CancellationScope.nonCancellable(async () => {
        if (cancelled) this.recordStep('stop:cancelled', this.budget(), 0, [], 'cancelled by the user');
        else this.fail(err);
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
      const before = this.budget();
      this.state.budget = countIteration(this.state.budget);
      this.injectNotifications();
      await this.compact();
      const response = await this.callModel();
      if (this.answersPerRequest) response.toolCalls = uniqueToolCallIds(response.toolCalls, this.iteration);
      if (!response.streamed && response.text) this.publish({ type: 'text', step: this.iteration, attempt: 1, delta: response.text });
      if (this.repliesPerTurn) {
        const next = await this.takeReply(response, before);
        if (next === 'continue') continue;
        if (next !== 'tool_calls') return next;
        await this.handleToolCalls(response.toolCalls, response.streamed, before);
        await this.continueAsNewIfSuggested();
        continue;
      }
      this.state.messages.push(responseToMessage(response));
      this.state.lastText = response.text;
      if (response.toolCalls.length === 0) {
        if (response.finishReason === 'length' && this.state.truncationRecoveries < MAX_TRUNCATION_RECOVERIES) {
          this.state.truncationRecoveries += 1;
          this.state.messages.push({ role: 'user', content: TRUNCATION_RECOVERY_PROMPT });
          this.recordStep('output_truncated', before, 0, [], `recovery ${this.state.truncationRecoveries} of ${MAX_TRUNCATION_RECOVERIES}`);
          continue;
        }
        const done = await this.proposeCompletion(before);
        if (done) return done;
        continue;
      }
      await this.handleToolCalls(response.toolCalls, response.streamed, before);
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
      this.recordStep('empty_reply', before, 0, [], 'the model replied with nothing: nudged once');
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
      this.recordStep('output_truncated', before, 0, [], `recovery ${verdict.recoveries} of ${MAX_TRUNCATION_RECOVERIES} in this turn`);
      return 'continue';
    }
    this.state.lastText = verdict.text;
    return (await this.proposeCompletion(before)) ?? 'continue';
  }

  private get iteration(): number {
    return this.state.budget.iterations;
  }

  /** SPEC 3.5: follow-ups wait in a queue and start the next turn at a safe boundary. */
  private takeFollowUps(): boolean {
    if (this.state.followUps.length === 0) return false;
    const taken = this.state.followUps.splice(0);
    for (const text of taken) this.state.messages.push({ role: 'user', content: text });
    this.recordStep('follow_up_taken', this.budget(), 0, [], `${taken.length} follow-up(s)`);
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
    const budget = this.budget();
    const record = this.recordStep(`stop:${reason}`, budget, 0, [], detail);
    return stopFailure(message, { reason, detail, budget, stepId: record.step_id });
  }

  /** Seed 000, step 1: finished jobs' notifications enter the history as one system message. */
  private injectNotifications(): void {
    const drained = this.board.drain();
    if (drained.length === 0) return;
    this.state.messages = injectNotifications(this.state.messages, drained);
    this.publish({ type: 'notification', step: this.iteration, text: notificationMessage(drained).content as string });
  }

  private async compact(): Promise<void> {
    const before = this.budget();
    const outcome = await compactHistory(
      this.state.messages,
      this.compaction,
      async (request) => {
        this.setPhase('compacting');
        const response = await this.modelCall(request, [], false, 'compaction summary');
        return response.text;
      },
      this.tokenCounting(),
    );
    if (outcome.kind === 'none') return;
    this.state.messages = outcome.messages;
    if (outcome.kind === 'summary_failed') {
      this.recordStep('compaction_failed', before, 0, [], `summary failed (${outcome.error}); history restored from the backup`);
      return;
    }
    this.recordStep(`compacted:${outcome.mode}`, before, 0, [], `context too long: ~${outcome.tokensBefore} → ~${outcome.tokensAfter} tokens`);
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
    this.setPhase('calling_model');
    this.publish({ type: 'model_call', step: this.iteration });
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
          ...this.transcriptFor(messages),
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
   * Only what the worker has not seen yet goes into the activity's input, so each model call adds
   * its new messages to the history instead of the whole conversation. A rewritten history (a new
   * array: compaction, a notification inserted) starts a new transcript key and is sent whole.
   */
  private transcriptFor(messages: Message[]): Pick<ModelRequest, 'messages' | 'transcript'> {
    if (messages !== this.state.messages) return { messages };
    if (this.sent.array !== messages) this.sent = { array: messages, count: 0, epoch: this.sent.epoch + 1 };
    const from = this.sent.count;
    this.sent.count = messages.length;
    return {
      messages: messages.slice(from),
      transcript: { key: `${workflowInfo().runId}:${this.sent.epoch}`, from, total: messages.length },
    };
  }

  /**
   * Seed 003, 4.4: a final answer is a proposal. It ends the run only when no job runs (or the
   * run does not wait for jobs), the acceptance check passes and no follow-up is queued.
   */
  private async proposeCompletion(before: BudgetSnapshot): Promise<AgentRunResult | undefined> {
    if (this.config.waitForJobs && this.board.hasRunning()) {
      const waitingOn = this.board.list().map((job) => job.taskId);
      this.setPhase('waiting_for_jobs');
      this.recordStep('waiting_for_jobs', before, 0, [], `final answer proposed while ${waitingOn.join(', ')} still run`);
      await condition(() => this.board.hasNotifications() || !this.board.hasRunning());
      return undefined;
    }
    if (this.config.acceptance) {
      this.setPhase('checking_acceptance');
      const check = await runAcceptance(this.config);
      if (check && !check.passed) {
        this.state.acceptanceAttempts += 1;
        if (this.state.acceptanceAttempts >= this.config.acceptance.maxAttempts) {
          throw this.stop('acceptance_failed', `Acceptance check failed ${this.state.acceptanceAttempts} times: ${this.config.acceptance.command}`, check.output.slice(0, 500));
        }
        this.state.messages.push({
          role: 'user',
          content: `The acceptance check \`${this.config.acceptance.command}\` failed (${this.state.acceptanceAttempts} of ${this.config.acceptance.maxAttempts}); the task is not done yet:\n${check.output.slice(-4000)}`,
        });
        this.recordStep('acceptance_failed', before, 1, [], check.output.slice(0, 300));
        return undefined;
      }
    }
    if (this.state.followUps.length > 0) {
      this.recordStep('next_turn', before, 0, [], 'answered; a follow-up is queued');
      return undefined;
    }
    if (this.config.idleTimeout !== undefined) {
      this.setPhase('idle');
      this.recordStep('idle', before, 0, [], `answered; open for follow-ups for ${this.config.idleTimeout}`);
      if (await condition(() => this.state.followUps.length > 0, durationToMs(this.config.idleTimeout))) return undefined;
    }
    return this.finish(before);
  }

  private async handleToolCalls(calls: ToolCall[], alreadyShown: boolean, before: BudgetSnapshot): Promise<void> {
    const results: ToolResultBlock[] = [];
    let evidence = 0;
    let warned = false;
    let failureWarned = false;
    for (const call of calls) {
      if (!alreadyShown) this.publish({ type: 'tool_call', step: this.iteration, id: call.id, name: call.name, input: call.input });
      this.setPhase('running_tool');
      const result = await dispatchToolCall(call, {
        workspace: this.config.workspace,
        toolTaskQueue: this.config.toolTaskQueue,
        sandbox: this.sandbox,
        observeSandbox: (kind) => {
          this.sandboxKind = kind;
        },
        offered: this.offered,
        checkPermission: (name, args): PermissionDecision => this.guard(this.policy, name, args),
        askHuman: (c, args, decision) => this.human.ask(c, args, decision),
        runWorkflowTool: (name, args) => this.runWorkflowTool(name, args),
      });
      this.publish({ type: 'tool_result', step: this.iteration, id: call.id, name: call.name, isError: result.is_error, preview: result.content.slice(0, 300) });
      results.push(result);
      const seen = observe(this.state.loopDetector, {
        fingerprint: actionFingerprint(call.name, call.input),
        evidence: evidenceHash(result.content),
        step: this.iteration,
      });
      this.state.loopDetector = seen.state;
      if (seen.newEvidence) evidence += 1;
      if (seen.verdict.kind === 'warn') warned = true;
      // A call that fails the same way again is also "no progress": the more specific stop wins.
      if (this.failuresByAction) failureWarned = this.observeActionFailures(call, result, results) || failureWarned;
      if (seen.verdict.kind === 'stop') {
        this.state.messages.push({ role: 'user', content: results });
        throw this.stop('NO_PROGRESS', `No progress: ${call.name} repeated ${seen.verdict.count} times with the same result`, `NO_PROGRESS: ${call.name} ×${seen.verdict.count}`);
      }
      if (!this.failuresByAction) this.observeFailures(call, result, results);
    }
    // Seed 003: the third repeat without new evidence gets a nudge, inside the same tool round.
    const nudges = failureWarned ? [REPEATED_FAILURE_MESSAGE] : warned ? [REPEATED_ACTION_MESSAGE] : [];
    const content: Array<ToolResultBlock | { type: 'text'; text: string }> = [...results, ...nudges.map((text) => ({ type: 'text' as const, text }))];
    this.state.messages.push({ role: 'user', content: nudges.length > 0 ? content : results });
    const ranCommands = calls.some((call) => call.name === 'bash' || call.name === 'background_run');
    const reason = failureWarned ? 'next_turn:repeated_failure_warned' : warned ? 'next_turn:repeated_action_warned' : 'next_turn';
    this.recordStep(reason, before, evidence, calls, undefined, ranCommands ? this.sandboxLine() : undefined);
  }

  /** `network none · workspace read-write · bubblewrap`: what a step's commands could reach. */
  private sandboxLine(): string {
    const status = this.sandboxStatus();
    return `network ${status.network} · workspace ${status.workspace} · ${status.enforcement}`;
  }

  private sandboxStatus(): SandboxStatus {
    return {
      network: describeNetwork(this.sandbox.network),
      workspace: this.sandbox.writableWorkspace ? 'read-write' : 'read-only',
      readOnlyPaths: this.sandbox.readOnlyPaths,
      enforcement: this.sandboxKind ?? 'no command run yet',
    };
  }

  /**
   * The same call failing the same way (src/loop/action-failures.ts): true when the tool round
   * should carry the warning; throws the stop. A denial is a decision and touches no count.
   */
  private observeActionFailures(call: ToolCall, result: ToolResultBlock, results: ToolResultBlock[]): boolean {
    const kind = errorKindOf(result.content, result.is_error);
    if (kind === 'UserDenied') return false;
    const outcome = { fingerprint: actionFingerprint(call.name, call.input), tool: call.name, errorKind: kind };
    const seen = observeActionFailure(this.state.failureStreak, outcome, this.config.repeatedFailure);
    this.state.failureStreak = seen.state;
    if (seen.verdict.kind === 'stop') {
      this.state.messages.push({ role: 'user', content: results });
      throw this.stop('REPEATED_FAILURE', `Repeated failure: ${seen.verdict.detail}`, seen.verdict.detail);
    }
    return seen.verdict.kind === 'warn';
  }

  /** Runs recorded before failures were counted per action: the same tool failing the same way 3 times running. */
  private observeFailures(call: ToolCall, result: ToolResultBlock, results: ToolResultBlock[]): void {
    const kind = errorKindOf(result.content, result.is_error);
    // A human's "no" is a decision, not a failure of the tool.
    if (kind === null || kind === 'UserDenied') {
      this.state.failureStreak = createFailureStreak();
      return;
    }
    const seen = observeFailure(this.state.failureStreak, { tool: call.name, errorKind: kind });
    this.state.failureStreak = seen.state;
    if (seen.verdict.stop) {
      this.state.messages.push({ role: 'user', content: results });
      throw this.stop('REPEATED_FAILURE', `Repeated failure: ${seen.verdict.detail}`, seen.verdict.detail);
    }
  }

  private runWorkflowTool(name: ToolName, args: unknown) {
    const context = { board: this.board, config: this.config, workflowId: this.workflowId };
    if (name === 'background_run') return backgroundRun(args as ToolArgs<'background_run'>, context);
    return subagent(args as ToolArgs<'subagent'>, context);
  }

  /**
   * DESIGN.md section 5: when Temporal suggests it, hand everything to a new run of the same
   * workflow id (messages, counters, budgets, detector, queues, jobs, the stream) once handlers finished.
   */
  private async continueAsNewIfSuggested(): Promise<void> {
    if (!workflowInfo().continueAsNewSuggested) return;
    // Jobs and subagents end with the run (parent close policy REQUEST_CANCEL), and the server
    // applies that policy on continue-as-new too: hand over only once none is running. Asked here,
    // not at start, so that a run already under way when this shipped also waits for its new jobs.
    if (this.board.blocksContinueAsNew() && patched(CHILDREN_END_WITH_RUN)) return;
    this.recordStep('continue_as_new', this.budget(), 0, [], `history of ${workflowInfo().historyLength} events handed to a new run`);
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
      phase: this.phase,
      iteration: this.iteration,
      maxIterations: this.config.maxIterations,
      pendingPermissions: [...this.human.pending(), ...this.board.pendingChildQuestions().map(({ open: _open, ...question }) => question)],
      backgroundJobs: this.board.list(),
      usage: { inputTokens: this.state.budget.inputTokens, outputTokens: this.state.budget.outputTokens },
      model: this.config.model ?? null,
      budgetLeft: formatRemaining(this.state.budget, this.limits, Date.now()),
      queuedFollowUps: this.state.followUps.length,
      sandbox: this.sandboxStatus(),
    };
  }

  private finish(before: BudgetSnapshot): AgentRunResult {
    const text = this.state.lastText;
    this.recordStep('stop:final_answer', before, 0, []);
    this.setPhase('completed');
    this.attributes.set({ status: 'completed', waitingForHuman: false });
    this.publish({ type: 'final', text, stopReason: 'final_answer' });
    const { inputTokens, outputTokens, costUsd } = this.state.budget;
    return { text, stopReason: 'final_answer', iterations: this.iteration, usage: { inputTokens, outputTokens }, costUsd };
  }

  private fail(err: unknown): void {
    this.phase = 'failed';
    this.attributes.set({ status: 'failed', waitingForHuman: false });
    const failure = err instanceof ApplicationFailure ? err : undefined;
    this.publish({ type: 'failed', failureType: failure?.type ?? 'Error', message: (err as Error).message });
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

  private budget(): BudgetSnapshot {
    return budgetSnapshot(this.state.budget, this.limits, Date.now());
  }

  private recordStep(reason: string, before: BudgetSnapshot, evidence: number, calls: ToolCall[], detail?: string, sandbox?: string) {
    const stepId = (this.state.steps.at(-1)?.step_id ?? 0) + 1;
    const record = stepRecord({ stepId, reason, before, after: this.budget(), evidence, calls, detail, sandbox });
    this.state.steps.push(record);
    this.publish({ type: 'step', record });
    return record;
  }

  private setPhase(phase: RunPhase): void {
    this.phase = phase;
    this.attributes.set({ iterations: this.iteration });
    setCurrentDetails(
      `**${phase}** · iteration ${this.iteration}/${this.config.maxIterations} · ${formatRemaining(this.state.budget, this.limits, Date.now())}`,
    );
  }

  private publish(event: RunEvent): void {
    this.events.publish(event);
  }
}

function formatUsed(budget: string, value: number): string {
  if (budget === 'cost') return `$${value.toFixed(4)}`;
  if (budget === 'wall_clock') return `${Math.round(value / 1000)}s`;
  return String(value);
}
