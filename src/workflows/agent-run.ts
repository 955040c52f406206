import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { EVENTS_TOPIC, type RunEvent } from '../common/events';
import { parseAgentRunInput, type AgentRunConfig, type AgentRunInput } from '../common/input';
import type { ChildPermission, JobFinished } from '../common/jobs';
import { responseToMessage, type LLMResponse, type Message, type ToolCall, type ToolResultBlock } from '../common/messages';
import { toolSummary, type ToolArgs, type ToolName } from '../common/tool-schemas';
import type { AgentRunResult, PendingPermission, RunPhase, RunStatus, StepRecord } from '../common/wire';
import { agentType, toolsFor } from '../loop/agent-types';
import { durationToMs } from '../loop/duration';
import { injectNotifications, notificationMessage } from '../loop/notifications';
import { checkPermission, createPolicy, type PermissionDecision } from '../loop/permissions';
import { budgetSnapshot, stepRecord } from '../loop/steps';
import { modelActivities } from './activity-proxies';
import { notifyParent } from './background-job';
import { childPermissionSignal, eventsQuery, messagesQuery, statusQuery, stepsQuery } from './definitions';
import { JobBoard } from './job-board';
import { PermissionGate } from './permission-gate';
import { describeActivityFailure, invalidInput, llmCallError } from './run-failures';
import { RunAttributes } from './search-attribute-keys';
import { eventsSince } from './stream-events';
import { dispatchToolCall } from './tool-dispatch';
import { backgroundRun, subagent } from './workflow-tools';

/** One agent run: BareAgent's `agent_loop()` as a durable workflow (seed 000). */
export async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
  const parsed = parseAgentRunInput(input);
  if (!parsed.ok) throw invalidInput(parsed.message);
  return new AgentRun(parsed.config).run();
}

class AgentRun {
  private readonly messages: Message[] = [];
  private readonly steps: StepRecord[] = [];
  private readonly usage = { inputTokens: 0, outputTokens: 0 };
  private iteration = 0;
  private phase: RunPhase = 'starting';
  private readonly stream = new WorkflowStream();
  private readonly events = this.stream.topic<RunEvent>(EVENTS_TOPIC);
  private readonly gate = new PermissionGate();
  private readonly attributes = new RunAttributes();
  private readonly board: JobBoard;
  private readonly policy;
  private readonly offered: ReadonlySet<string>;
  private readonly workflowId = workflowInfo().workflowId;

  constructor(private readonly config: AgentRunConfig) {
    this.policy = createPolicy(config.permissionMode, config.permissionRules);
    const type = agentType(config.agentType);
    this.offered = new Set(config.tools ?? (type ? toolsFor(type, config.depth) : []));
    this.board = new JobBoard(undefined, (change) => this.onJobChange(change));
    setHandler(messagesQuery, () => this.messages);
    setHandler(stepsQuery, () => this.steps);
    setHandler(eventsQuery, (fromOffset = 0) => eventsSince(this.stream, fromOffset));
    setHandler(statusQuery, () => this.status());
  }

  async run(): Promise<AgentRunResult> {
    this.messages.push({ role: 'user', content: this.config.prompt });
    this.attributes.set({ status: 'running', waitingForHuman: false, ...(this.config.model ? { model: this.config.model } : {}) });
    try {
      const result = await this.loop();
      await this.end({ taskId: this.config.parent?.taskId ?? '', status: 'done', summary: result.text });
      return result;
    } catch (err) {
      if (!isCancellation(err)) this.fail(err);
      const { type, message } = describeActivityFailure(err);
      await CancellationScope.nonCancellable(() =>
        this.end({ taskId: this.config.parent?.taskId ?? '', status: isCancellation(err) ? 'cancelled' : 'failed', summary: `${type}: ${message}` }),
      );
      throw err;
    }
  }

  private async loop(): Promise<AgentRunResult> {
    for (this.iteration = 1; this.iteration <= this.config.maxIterations; this.iteration++) {
      const before = this.budget();
      this.injectNotifications();
      const response = await this.callModel();
      this.messages.push(responseToMessage(response));
      if (!response.streamed && response.text) {
        this.publish({ type: 'text', step: this.iteration, attempt: 1, delta: response.text });
      }
      if (response.toolCalls.length === 0) {
        // A final answer is a proposal (seed 003): while jobs run, wait for them and go on.
        if (this.config.waitForJobs && this.board.hasRunning()) {
          await this.waitForJobs(before);
          continue;
        }
        return this.finish(response, before);
      }
      const results = await this.handleToolCalls(response.toolCalls, response.streamed);
      this.messages.push({ role: 'user', content: results });
      this.recordStep('next_turn', before, results.length, response.toolCalls);
    }
    throw llmCallError(`Agent loop exceeded ${this.config.maxIterations} iterations`);
  }

  /** Seed 000, step 1: finished jobs' notifications enter the history as one system message. */
  private injectNotifications(): void {
    const drained = this.board.drain();
    if (drained.length === 0) return;
    const injected = injectNotifications(this.messages, drained);
    this.messages.splice(0, this.messages.length, ...injected);
    this.publish({ type: 'notification', step: this.iteration, text: notificationMessage(drained).content as string });
  }

  private async waitForJobs(before: StepRecord['budget_before']): Promise<void> {
    const waitingOn = this.board.list().map((job) => job.taskId);
    this.setPhase('waiting_for_jobs');
    this.recordStep('waiting_for_jobs', before, 0, [], `final answer proposed while ${waitingOn.join(', ')} still run`);
    await condition(() => this.board.hasNotifications() || !this.board.hasRunning());
  }

  private async callModel(): Promise<LLMResponse> {
    this.setPhase('calling_model');
    this.publish({ type: 'model_call', step: this.iteration });
    const model = this.config.model ?? 'default model';
    try {
      const response = await modelActivities.callModel.executeWithOptions({ summary: `${model} · step ${this.iteration}` }, [
        {
          ...(this.config.model ? { model: this.config.model } : {}),
          ...(this.config.systemPrompt ? { systemPrompt: this.config.systemPrompt } : {}),
          messages: this.messages,
          tools: [...this.offered],
          stream: this.config.stream,
          step: this.iteration,
        },
      ]);
      this.usage.inputTokens += response.usage.inputTokens;
      this.usage.outputTokens += response.usage.outputTokens;
      return response;
    } catch (err) {
      if (isCancellation(err)) throw err;
      const { type, message } = describeActivityFailure(err);
      throw llmCallError(`LLM call failed: ${type}: ${message}`);
    }
  }

  private async handleToolCalls(calls: ToolCall[], alreadyShown: boolean): Promise<ToolResultBlock[]> {
    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      if (!alreadyShown) {
        this.publish({ type: 'tool_call', step: this.iteration, id: call.id, name: call.name, input: call.input });
      }
      this.setPhase('running_tool');
      const result = await dispatchToolCall(call, {
        workspace: this.config.workspace,
        offered: this.offered,
        checkPermission: (name, args) => checkPermission(this.policy, name, args),
        askHuman: (c, args, decision) => this.askHuman(c, args, decision),
        runWorkflowTool: (name, args) => this.runWorkflowTool(name, args),
      });
      this.publish({
        type: 'tool_result',
        step: this.iteration,
        id: call.id,
        name: call.name,
        isError: result.is_error,
        preview: result.content.slice(0, 300),
      });
      results.push(result);
    }
    return results;
  }

  private runWorkflowTool(name: ToolName, args: unknown) {
    const context = { board: this.board, config: this.config, workflowId: this.workflowId };
    if (name === 'background_run') return backgroundRun(args as ToolArgs<'background_run'>, context);
    return subagent(args as ToolArgs<'subagent'>, context);
  }

  private async askHuman(call: ToolCall, input: unknown, decision: PermissionDecision): Promise<boolean> {
    if (!this.config.askHuman) {
      this.recordStep('approval_unavailable', this.budget(), 0, [call], `${decision.reason}; nobody to ask in the background: denied`);
      return false;
    }
    const timeoutMs = durationToMs(this.config.approvalTimeout);
    const now = Date.now();
    const request: PendingPermission = {
      requestId: call.id,
      tool: call.name,
      input,
      requestedAt: new Date(now).toISOString(),
      deadline: new Date(now + timeoutMs).toISOString(),
    };
    this.setPhase('awaiting_approval');
    this.attributes.set({ status: 'awaiting_approval', waitingForHuman: true });
    this.publish({ type: 'permission_request', step: this.iteration, ...request });
    await this.mirrorToParent(request, true);
    const answer = await this.gate.ask(request, timeoutMs);
    await this.mirrorToParent(request, false);
    this.attributes.set({ status: 'running', waitingForHuman: false });
    this.publish({
      type: 'permission_decided',
      step: this.iteration,
      requestId: call.id,
      decision: answer.allowed ? 'allow' : 'deny',
      reason: answer.timedOut ? `timed out after ${this.config.approvalTimeout}: denied (fail closed)` : answer.reason,
    });
    if (answer.timedOut) {
      this.recordStep('approval_timed_out', this.budget(), 0, [call], `${toolSummary(call.name, input)} (${decision.reason})`);
    }
    this.setPhase('running_tool');
    return answer.allowed;
  }

  /** A subagent's question shows in its parent's status, where people look. */
  private async mirrorToParent(request: PendingPermission, open: boolean): Promise<void> {
    if (!this.config.parent) return;
    await getExternalWorkflowHandle(this.config.parent.workflowId)
      .signal(childPermissionSignal, { ...request, workflowId: this.workflowId, open })
      .catch(() => undefined);
  }

  private onJobChange(change: { finished?: JobFinished; question?: ChildPermission }): void {
    const question = change.question;
    if (question?.open) {
      this.publish({
        type: 'permission_request',
        step: this.iteration,
        requestId: question.requestId,
        tool: question.tool,
        input: question.input,
        deadline: question.deadline,
        workflowId: question.workflowId,
      });
    }
  }

  private status(): RunStatus {
    return {
      phase: this.phase,
      iteration: this.iteration,
      maxIterations: this.config.maxIterations,
      pendingPermissions: [
        ...this.gate.list(),
        ...this.board.pendingChildQuestions().map(({ open: _open, ...question }) => question),
      ],
      backgroundJobs: this.board.list(),
      usage: { ...this.usage },
      model: this.config.model ?? null,
    };
  }

  private finish(response: LLMResponse, before: StepRecord['budget_before']): AgentRunResult {
    this.recordStep('final_answer', before, 0, []);
    this.setPhase('completed');
    this.attributes.set({ status: 'completed', waitingForHuman: false });
    this.publish({ type: 'final', text: response.text, stopReason: 'final_answer' });
    return { text: response.text, stopReason: 'final_answer', iterations: this.iteration, usage: { ...this.usage } };
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

  private budget() {
    return budgetSnapshot(this.config.maxIterations - this.iteration + 1, this.usage);
  }

  private recordStep(reason: string, before: StepRecord['budget_before'], evidence: number, calls: ToolCall[], detail?: string) {
    const record = stepRecord({ stepId: this.steps.length + 1, reason, before, after: this.budget(), evidence, calls, detail });
    this.steps.push(record);
    this.publish({ type: 'step', record });
  }

  private setPhase(phase: RunPhase): void {
    this.phase = phase;
    this.attributes.set({ iterations: this.iteration });
    setCurrentDetails(
      `**${phase}** · iteration ${this.iteration}/${this.config.maxIterations} · tokens ${this.usage.inputTokens + this.usage.outputTokens}`,
    );
  }

  private publish(event: RunEvent): void {
    this.events.publish(event);
  }
}
