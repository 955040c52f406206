import { CancellationScope, getExternalWorkflowHandle, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { RunEvent } from '../common/events';
import type { AgentRunConfig } from '../common/input';
import type { ChildPermission } from '../common/jobs';
import type { ToolCall } from '../common/messages';
import type { PendingPermission, RunPhase } from '../common/wire';
import { durationToMs } from '../common/duration';
import type { PermissionDecision } from '../loop/permissions';
import type { Transition } from '../loop/transitions';
import { childPermissionSignal } from '../common/contract';
import { notifyHuman } from './notify-human';
import { PermissionGate, type HumanAnswer } from './permission-gate';
import type { RunAttributes } from './search-attribute-keys';

export interface HumanChannelContext {
  config: Omit<AgentRunConfig, 'resume'>;
  workflowId: string;
  publish(event: RunEvent): void;
  setPhase(phase: RunPhase): void;
  attributes: RunAttributes;
  record(transition: Transition): void;
  step(): number;
  /** The run starts waiting for a human (PermissionRequest and Notification hooks). */
  waiting(request: PendingPermission): void;
  /** An "allow always" answer: `rule` allows for the rest of the run. */
  allowForRun(rule: string): void;
  /** The turn that asks is being cancelled (the `cancelTurn` signal): its question is withdrawn, not left open. */
  turnCancelling(): boolean;
  /** See PermissionGate: false only for runs recorded before answers were per request. */
  /** See PermissionGate: false only for runs recorded before a blank argument derived no rule. */
}

/**
 * A question is a pending request shown in `status`, in search attributes and on
 * the stream, answered by signal or update; no answer before the deadline is a denial.
 */
export class HumanChannel {
  private readonly gate: PermissionGate;
  /** Questions asked in this run: with the run id's tail, the request id (see PendingPermission). */
  private asked = 0;

  constructor(private readonly context: HumanChannelContext) {
    this.gate = new PermissionGate();
  }

  pending(): PendingPermission[] {
    return this.gate.list();
  }

  async ask(call: ToolCall, input: unknown, decision: PermissionDecision): Promise<boolean> {
    return (await this.answer(call, input, decision)).allowed;
  }

  /**
   * The question, and whether it timed out. `forRun: false`: an "allow always" answer allows this
   * request only (the run-start question about workspace settings has no calls to come).
   */
  async answer(call: ToolCall, input: unknown, decision: PermissionDecision, options: { forRun?: boolean } = {}): Promise<{ allowed: boolean; timedOut: boolean }> {
    const { config, publish, attributes } = this.context;
    if (!config.askHuman) {
      this.context.record({ kind: 'approval_unavailable', call, why: decision.reason });
      return { allowed: false, timedOut: false };
    }
    const timeoutMs = durationToMs(config.approvalTimeout);
    const now = Date.now();
    const request: PendingPermission = {
      requestId: this.nextRequestId(),
      toolCallId: call.id,
      tool: call.name,
      input,
      requestedAt: new Date(now).toISOString(),
      deadline: new Date(now + timeoutMs).toISOString(),
    };
    this.context.setPhase('awaiting_approval');
    attributes.set({ status: 'awaiting_approval', waitingForHuman: true });
    publish({ type: 'permission_request', step: this.context.step(), ...request });
    await this.mirrorToParent(request, true);
    const answered = notifyHuman(config, this.context.workflowId, request, (error) => this.context.record({ kind: 'notification_failed', requestId: request.requestId, error }));
    this.context.waiting(request);
    const asked = await this.gate.ask(request, timeoutMs).catch(async (err: unknown) => {
      if (isCancellation(err) && this.context.turnCancelling()) await CancellationScope.nonCancellable(() => this.withdraw(request, answered));
      throw err;
    });
    const { rule: _rule, ...withoutRule } = asked;
    const answer: HumanAnswer = options.forRun === false ? withoutRule : asked;
    answered();
    await this.mirrorToParent(request, false);
    attributes.set({ status: 'running', waitingForHuman: false });
    publish({
      type: 'permission_decided',
      step: this.context.step(),
      requestId: request.requestId,
      toolCallId: call.id,
      decision: answer.allowed ? 'allow' : 'deny',
      reason: answer.timedOut ? `timed out after ${config.approvalTimeout}: denied (fail closed)` : answer.reason,
      ...(answer.rule ? { rule: answer.rule } : {}),
    });
    if (answer.rule) {
      this.context.allowForRun(answer.rule);
      this.context.record({ kind: 'allowed_for_run', call, rule: answer.rule });
    }
    if (answer.timedOut) this.context.record({ kind: 'approval_timed_out', call, input, why: decision.reason });
    this.context.setPhase('running_tool');
    return { allowed: answer.allowed, timedOut: answer.timedOut };
  }

  /** A subagent's question also shows on its parent's stream, where a person follows the run. */
  onChildQuestion(question: ChildPermission | undefined): void {
    if (!question?.open) return;
    this.context.publish({
      type: 'permission_request',
      step: this.context.step(),
      requestId: question.requestId,
      toolCallId: question.toolCallId,
      tool: question.tool,
      input: question.input,
      deadline: question.deadline,
      workflowId: question.workflowId,
    });
  }

  /**
   * The run id changes with every continue-as-new, fork and reset, so its tail and a counter never
   * repeat in one workflow. The tail, not the head: a time-ordered (v7) run id starts with the clock.
   */
  private nextRequestId(): string {
    return `${workflowInfo().runId.replace(/-/g, '').slice(-8)}-${++this.asked}`;
  }

  /**
   * A question whose turn was cancelled: closed everywhere it shows (the stream, the parent's
   * status, the search attributes, the webhooks' retries) as denied, so no client keeps asking it.
   */
  private async withdraw(request: PendingPermission, answered: () => void): Promise<void> {
    answered();
    await this.mirrorToParent(request, false);
    this.context.attributes.set({ status: 'running', waitingForHuman: false });
    this.context.publish({
      type: 'permission_decided',
      step: this.context.step(),
      requestId: request.requestId,
      toolCallId: request.toolCallId,
      decision: 'deny',
      reason: 'withdrawn: the turn was cancelled',
    });
  }

  /** A subagent's question is mirrored in its parent's status. */
  private async mirrorToParent(request: PendingPermission, open: boolean): Promise<void> {
    const parent = this.context.config.parent;
    if (!parent) return;
    await getExternalWorkflowHandle(parent.workflowId)
      .signal(childPermissionSignal, { ...request, workflowId: this.context.workflowId, open })
      .catch(() => undefined);
  }
}
