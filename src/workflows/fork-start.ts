import { isCancellation, upsertMemo } from '@temporalio/workflow';
import { FailureType } from '../common/errors';
import type { ForkFrom } from '../common/input';
import { forkActivities } from './activity-proxies';
import type { RunReporter } from './run-reporter';
import { describeActivityFailure, invalidInput } from './run-failures';
import type { RunState } from './run-state';

/**
 * A fork's first act: the origin's conversation up to the asked step (one activity, so a replay
 * reads it from this run's history), then the fork's own prompt as the next user message. No
 * tool of the origin runs again: their results are in the conversation.
 */
export async function startFromOrigin(forkFrom: ForkFrom, prompt: string, state: RunState, report: RunReporter): Promise<void> {
  let loaded;
  try {
    loaded = await forkActivities.loadForkOrigin(forkFrom);
  } catch (err) {
    if (isCancellation(err)) throw err;
    const { type, message } = describeActivityFailure(err);
    throw invalidInput(type === FailureType.InvalidInput ? message : `forkFrom: could not read the origin ${forkFrom.workflowId}: ${type}: ${message}`);
  }
  state.messages = [...loaded.messages, { role: 'user', content: prompt }];
  state.forkedFrom = loaded.origin;
  showOrigin(state, report);
  upsertMemo({ forkedFrom: loaded.origin });
}

/** The link to the origin as a search attribute (set again after continue-as-new, from the carried state). */
export function showOrigin(state: RunState, report: RunReporter): void {
  if (state.forkedFrom) report.attributes.set({ forkedFrom: state.forkedFrom.workflowId });
}
