/**
 * A deliberately broken build of the workflows: agentRun starts with a timer the recorded
 * histories do not have. The replay guard test shows the replay suite catches such a change.
 */
import { sleep } from '@temporalio/workflow';
import type { AgentRunInput } from '../../../src/common/input';
import { agentRun as realAgentRun } from '../../../src/workflows/agent-run';

export async function agentRun(input: AgentRunInput) {
  await sleep(1);
  return realAgentRun(input);
}
