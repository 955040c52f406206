import { upsertMemo } from '@temporalio/workflow';
import { FailureType } from '../common/failures';
import type { AgentRunConfig, ForkFrom } from '../common/input';
import { restoreFromOrigin } from './checkpoints';
import { forkActivities } from './activity-proxies';
import type { RunReporter } from './run-reporter';
import { attempt, invalidInput } from './failures';
import type { RunState } from './run-state';

/**
 * A fork's first act: the origin's conversation up to the asked step (one activity, so a replay
 * reads it from this run's history), then the fork's own prompt as the next user message. No
 * tool of the origin runs again: their results are in the conversation.
 */
export async function startFromOrigin(
  forkFrom: ForkFrom,
  prompt: string,
  /** The path the run resolved at its start, and the one its input gave. */
  place: { workspace: string | undefined; given: string | undefined },
  state: RunState,
  report: RunReporter,
  run?: { config: Omit<AgentRunConfig, 'resume'>; workflowId: string },
): Promise<void> {
  // The run's own workspace goes along: the worker checks the fork against the origin's (an activity's input is not replayed, so no patch).
  const { workspace, given } = place;
  const read = await attempt(() => forkActivities.loadForkOrigin(forkFrom, { ...(workspace ? { workspace } : {}), ...(given ? { given } : {}) }));
  if (!read.ok) {
    const { type, message } = read;
    throw invalidInput(type === FailureType.InvalidInput ? message : `forkFrom: could not read the origin ${forkFrom.workflowId}: ${type}: ${message}`);
  }
  const loaded = read.value;
  // From here on the fork works in the path its authorisation checked, not in what a link names later.
  if (loaded.workspace && run) run.config.workspace = loaded.workspace;
  if (loaded.checkpoint && run) await restoreFromOrigin(run.config, state, run.workflowId, loaded.checkpoint, report);
  state.messages = [...loaded.messages, { role: 'user', content: prompt }];
  state.forkedFrom = loaded.origin;
  if (loaded.workspace) state.workspacePath = loaded.workspace;
  showOrigin(state, report);
  upsertMemo({ forkedFrom: loaded.origin });
}

/** The link to the origin as a search attribute (set again after continue-as-new, from the carried state). */
export function showOrigin(state: RunState, report: RunReporter): void {
  if (state.forkedFrom) report.attributes.set({ forkedFrom: state.forkedFrom.workflowId });
}
