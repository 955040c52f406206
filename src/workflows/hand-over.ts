import { allHandlersFinished, condition, makeContinueAsNewFunc, workflowInfo, type ContinueAsNewOptions } from '@temporalio/workflow';
import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { AgentRunConfig, AgentRunInput } from '../common/input';
import type { AgentRunResult } from '../common/wire';
import type { JobBoard } from './job-board';
import { CARRIED_STEPS, type RunState } from './run-state';

/** Stream entries kept across continue-as-new: a follower that is further behind than this catches up from history. */
const CARRIED_STREAM_ENTRIES = 2000;

/**
 * When Temporal suggests it (ARCHITECTURE.md, "Continue-as-new"), hand everything to a new run of the same
 * workflow id (messages, counters, budgets, detector, queues, jobs, the stream) once handlers finished.
 */
export async function handOver(stream: WorkflowStream, config: Omit<AgentRunConfig, 'resume'>, state: RunState, board: JobBoard): Promise<void> {
  const end = stream.getState().base_offset + stream.getState().log.length;
  if (end > CARRIED_STREAM_ENTRIES) stream.truncate(end - CARRIED_STREAM_ENTRIES);
  // The stream's own continueAsNew, spelled out: it takes no continue-as-new options.
  stream.detachPollers();
  await condition(allHandlersFinished);
  const next: [AgentRunInput] = [
    {
      ...(config as AgentRunInput),
      resume: {
        ...state,
        steps: state.steps.slice(-CARRIED_STEPS),
        jobs: board.state(),
        stream: stream.getState(),
        generation: state.generation + 1,
      } satisfies RunState,
    },
  ];
  // The workflow's own signature, spelled out: importing agentRun here would make the two files import each other.
  await makeContinueAsNewFunc<(input: AgentRunInput) => Promise<AgentRunResult>>(nextRunOptions())(...next);
}

/**
 * A pinned run's next run stays on its version unless told otherwise: once a newer version is
 * current (the deployment's target changed), the next run starts on it. Only then are options
 * set, so the command of a run without Worker Versioning (and of every recorded history) is as before.
 */
function nextRunOptions(): ContinueAsNewOptions | undefined {
  return workflowInfo().targetWorkerDeploymentVersionChanged ? { initialVersioningBehavior: 'AUTO_UPGRADE' } : undefined;
}
