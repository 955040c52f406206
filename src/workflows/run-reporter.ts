import { ApplicationFailure, setCurrentDetails } from '@temporalio/workflow';
import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { EVENTS_TOPIC, type RunEvent } from '../common/events';
import type { StepCheckpoint } from '../common/checkpoint';
import type { ToolCall } from '../common/messages';
import type { BudgetSnapshot, RunPhase, StepRecord } from '../common/wire';
import { formatRemaining, type BudgetLimits } from '../loop/budget';
import { budgetSnapshot, stepRecord } from '../loop/steps';
import { describeTransition, type Transition } from '../loop/transitions';
import type { RunState } from './run-state';
import { RunAttributes } from './search-attribute-keys';

/** With sparse upserts, `BareAgentIterations` is upserted at iteration 1 and every this many after it. */
export const ITERATION_ATTRIBUTE_EVERY = 10;

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
  /** The checkpoint of the tool round whose step is recorded next. */
  private pendingCheckpoint: StepCheckpoint | { error: string } | undefined;
  /** `step 3 changed 2 files`: the newest checkpoint, on the Web UI's details line. */
  private checkpointLine = '';
  /** Told of every step (the stall watchdog). */
  onStep: (() => void) | undefined;
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
      ...(this.pendingCheckpoint ? { checkpoint: this.pendingCheckpoint } : {}),
    };
    if (this.pendingCheckpoint) this.checkpointLine = describeCheckpoint(stepId, this.pendingCheckpoint);
    this.pendingCheckpoint = undefined;
    this.state.usageEstimatePending = false;
    if (recovered) delete this.state.recoveredToolCallsPending;
    this.state.steps.push(record);
    this.onStep?.();
    this.publish({ type: 'step', record });
    return record;
  }

  /** The step the next record gets: what a checkpoint taken now is labelled. */
  nextStepId(): number {
    return (this.state.steps.at(-1)?.step_id ?? 0) + 1;
  }

  /** The tool round's checkpoint goes on the next step record (that round's own). */
  attachCheckpoint(mark: StepCheckpoint | { error: string } | undefined): void {
    this.pendingCheckpoint = mark;
  }

  /** The one place a step is recorded: a transition, with the budget as it was when the step began. */
  record(transition: Transition, before: BudgetSnapshot): StepRecord {
    const { reason, detail, evidence, calls, sandbox } = describeTransition(transition);
    return this.recordStep(reason, before, evidence, calls, detail, sandbox);
  }

  setPhase(phase: RunPhase): void {
    this.phase = phase;
    const iterations = this.iteration;
    if (iterations <= 1 || iterations % ITERATION_ATTRIBUTE_EVERY === 0) this.attributes.set({ iterations });
    else this.attributes.note({ iterations });
    setCurrentDetails(`**${phase}** · iteration ${this.iteration}/${this.maxIterations} · ${formatRemaining(this.state.budget, this.limits, Date.now())}${this.checkpointLine}`);
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

function describeCheckpoint(step: number, mark: StepCheckpoint | { error: string }): string {
  if ('error' in mark) return ` · step ${step}: no checkpoint (${mark.error.slice(0, 80)})`;
  return ` · step ${step} changed ${mark.changed} file${mark.changed === 1 ? '' : 's'} (checkpoint ${mark.id.slice(0, 10)})`;
}
