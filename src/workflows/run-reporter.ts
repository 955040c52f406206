import { ApplicationFailure, setCurrentDetails } from '@temporalio/workflow';
import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { EVENTS_TOPIC, type RunEvent } from '../common/events';
import type { ToolCall } from '../common/messages';
import type { BudgetSnapshot, RunPhase, StepRecord } from '../common/wire';
import { formatRemaining, type BudgetLimits } from '../loop/budget';
import { budgetSnapshot, stepRecord } from '../loop/steps';
import { describeTransition, type Transition } from '../loop/transitions';
import type { RunState } from './run-state';
import { RunAttributes } from './search-attribute-keys';

/**
 * Everything a run tells the outside world about itself: its phase (in `status`, in the UI's
 * current details, in the iterations search attribute), the other search attributes, the events
 * stream and the step records. Each call here is a workflow command or a query's answer, so the
 * order the run calls them in is part of its history.
 */
export class RunReporter {
  phase: RunPhase = 'starting';
  readonly attributes = new RunAttributes();
  private readonly events;

  constructor(
    stream: WorkflowStream,
    private readonly state: RunState,
    private readonly limits: BudgetLimits,
    private readonly maxIterations: number,
  ) {
    this.events = stream.topic<RunEvent>(EVENTS_TOPIC);
  }

  private get iteration(): number {
    return this.state.budget.iterations;
  }

  budget(): BudgetSnapshot {
    return budgetSnapshot(this.state.budget, this.limits, Date.now());
  }

  private recordStep(reason: string, before: BudgetSnapshot, evidence: number, calls: ToolCall[], detail?: string, sandbox?: string): StepRecord {
    const stepId = (this.state.steps.at(-1)?.step_id ?? 0) + 1;
    const computed = stepRecord({ stepId, reason, before, after: this.budget(), evidence, calls, detail, sandbox, messageCount: this.state.messages.length });
    const recovered = this.state.recoveredToolCallsPending;
    const record: StepRecord = {
      ...computed,
      ...(this.state.usageEstimatePending ? { usage_estimated: true as const } : {}),
      ...(recovered ? { recovered_tool_calls: recovered } : {}),
    };
    this.state.usageEstimatePending = false;
    if (recovered) delete this.state.recoveredToolCallsPending;
    this.state.steps.push(record);
    this.publish({ type: 'step', record });
    return record;
  }

  /** The one place a step is recorded: a transition, with the budget as it was when the step began. */
  record(transition: Transition, before: BudgetSnapshot): StepRecord {
    const { reason, detail, evidence, calls, sandbox } = describeTransition(transition);
    return this.recordStep(reason, before, evidence, calls, detail, sandbox);
  }

  setPhase(phase: RunPhase): void {
    this.phase = phase;
    this.attributes.set({ iterations: this.iteration });
    setCurrentDetails(`**${phase}** · iteration ${this.iteration}/${this.maxIterations} · ${formatRemaining(this.state.budget, this.limits, Date.now())}`);
  }

  publish(event: RunEvent): void {
    this.events.publish(event);
  }

  /** A failed run: the phase without the details line (nothing runs any more), the attributes, the event. */
  failed(err: unknown): void {
    this.phase = 'failed';
    this.attributes.set({ status: 'failed', waitingForHuman: false });
    const failure = err instanceof ApplicationFailure ? err : undefined;
    this.publish({ type: 'failed', failureType: failure?.type ?? 'Error', message: (err as Error).message });
  }
}
