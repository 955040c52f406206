import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { AgentRunConfig, AgentRunInput } from '../common/input';
import type { agentRun } from './agent-run';
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
  await stream.continueAsNew<typeof agentRun>((streamState) => [
    {
      ...(config as AgentRunInput),
      resume: {
        ...state,
        steps: state.steps.slice(-CARRIED_STEPS),
        jobs: board.state(),
        stream: streamState,
        generation: state.generation + 1,
      } satisfies RunState,
    },
  ]);
}
