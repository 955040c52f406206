import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  isCancellation,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { EVENTS_TOPIC, type RunEvent } from '../common/events';
import { parseAgentRunInput, type AgentRunConfig, type AgentRunInput } from '../common/input';
import { responseToMessage, type LLMResponse, type Message, type ToolCall, type ToolResultBlock } from '../common/messages';
import { TOOL_NAMES, toolSummary } from '../common/tool-schemas';
import type { AgentRunResult, RunPhase, StepRecord } from '../common/wire';
import { checkPermission, createPolicy, type PermissionDecision } from '../loop/permissions';
import { durationToMs } from '../loop/duration';
import { modelActivities } from './activity-proxies';
import { eventsQuery, messagesQuery, statusQuery, stepsQuery } from './definitions';
import { eventsSince } from './stream-events';
import { PermissionGate } from './permission-gate';
import { describeActivityFailure, invalidInput, llmCallError } from './run-failures';
import { RunAttributes } from './search-attribute-keys';
import { budgetSnapshot, stepRecord } from '../loop/steps';
import { dispatchToolCall } from './tool-dispatch';

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
  private readonly policy;

  constructor(private readonly config: AgentRunConfig) {
    this.policy = createPolicy(config.permissionMode, config.permissionRules);
    setHandler(messagesQuery, () => this.messages);
    setHandler(stepsQuery, () => this.steps);
    setHandler(eventsQuery, (fromOffset = 0) => eventsSince(this.stream, fromOffset));
    setHandler(statusQuery, () => ({
      phase: this.phase,
      iteration: this.iteration,
      maxIterations: this.config.maxIterations,
      pendingPermissions: this.gate.list(),
      backgroundJobs: [],
      usage: { ...this.usage },
      model: this.config.model ?? null,
    }));
  }

  async run(): Promise<AgentRunResult> {
    this.messages.push({ role: 'user', content: this.config.prompt });
    this.attributes.set({ status: 'running', waitingForHuman: false, ...(this.config.model ? { model: this.config.model } : {}) });
    try {
      for (this.iteration = 1; this.iteration <= this.config.maxIterations; this.iteration++) {
        const before = this.budget();
        const response = await this.callModel();
        this.messages.push(responseToMessage(response));
        if (!response.streamed && response.text) {
          this.publish({ type: 'text', step: this.iteration, attempt: 1, delta: response.text });
        }
        if (response.toolCalls.length === 0) {
          const result = this.finish(response, before);
          await this.releaseFollowers();
          return result;
        }
        const results = await this.handleToolCalls(response.toolCalls, response.streamed);
        this.messages.push({ role: 'user', content: results });
        this.recordStep('next_turn', before, results.length, response.toolCalls);
      }
      throw llmCallError(`Agent loop exceeded ${this.config.maxIterations} iterations`);
    } catch (err) {
      if (!isCancellation(err)) {
        this.fail(err);
        await this.releaseFollowers();
      }
      throw err;
    }
  }

  /** Followers parked on the stream get the last events before the run closes. */
  private async releaseFollowers(): Promise<void> {
    this.stream.detachPollers();
    await condition(allHandlersFinished);
  }

  private async callModel(): Promise<LLMResponse> {
    this.setPhase('calling_model');
    this.publish({ type: 'model_call', step: this.iteration });
    const model = this.config.model ?? 'default model';
    try {
      const response = await modelActivities.callModel.executeWithOptions(
        { summary: `${model} · step ${this.iteration}` },
        [
          {
            ...(this.config.model ? { model: this.config.model } : {}),
            ...(this.config.systemPrompt ? { systemPrompt: this.config.systemPrompt } : {}),
            messages: this.messages,
            tools: TOOL_NAMES,
            stream: this.config.stream,
            step: this.iteration,
          },
        ],
      );
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
        checkPermission: (name, args) => checkPermission(this.policy, name, args),
        askHuman: (c, args, decision) => this.askHuman(c, args, decision),
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

  private async askHuman(call: ToolCall, input: unknown, decision: PermissionDecision): Promise<boolean> {
    const timeoutMs = durationToMs(this.config.approvalTimeout);
    const now = Date.now();
    const request = {
      requestId: call.id,
      tool: call.name,
      input,
      requestedAt: new Date(now).toISOString(),
      deadline: new Date(now + timeoutMs).toISOString(),
    };
    this.setPhase('awaiting_approval');
    this.attributes.set({ status: 'awaiting_approval', waitingForHuman: true });
    this.publish({ type: 'permission_request', step: this.iteration, ...request });
    const answer = await this.gate.ask(request, timeoutMs);
    this.attributes.set({ status: 'running', waitingForHuman: false });
    this.publish({
      type: 'permission_decided',
      step: this.iteration,
      requestId: call.id,
      decision: answer.allowed ? 'allow' : 'deny',
      reason: answer.timedOut ? `timed out after ${this.config.approvalTimeout}: denied (fail closed)` : answer.reason,
    });
    if (answer.timedOut) this.recordStep('approval_timed_out', this.budget(), 0, [call], `${toolSummary(call.name, input)} (${decision.reason})`);
    this.setPhase('running_tool');
    return answer.allowed;
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
