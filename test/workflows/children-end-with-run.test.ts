import type { WorkflowHandle } from '@temporalio/client';
import { Harness } from '../support/harness';
import { isMarkedRunning } from '../support/process-state';
import { waitFor } from '../support/wait-for';
import { statusQuery } from '../../src/common/contract';
import { isPromptSent } from '../support/prompt-sent';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const SUB_TASK = 'Keep exploring slowly';

interface RunWithChildren {
  handle: WorkflowHandle;
  marker: string;
  scenario: string;
}

/**
 * A run that starts a `sleep 120` job and a background subagent that would go on calling the
 * model for about half a minute, then answers: it waits for them, or ends, as `waitForJobs` says.
 */
async function startRunWithChildren(scenario: string, waitForJobs: boolean): Promise<RunWithChildren> {
  const marker = `bareagent-${scenario}-${Date.now()}`;
  h.model.setScenario(scenario, (body: { messages: Array<{ role: string; content: unknown }> }, index: number) => {
    const prompt = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
    if (prompt === SUB_TASK) return { toolCalls: [{ id: `g${index}`, name: 'glob', arguments: { pattern: `*.${index}` } }], delayMs: 500 };
    // Answered late enough for the subagent to be well under way when the run ends.
    // The default system prompt comes first: the conversation is what follows it.
    if (body.messages.filter((m) => m.role !== 'system').length > 1) return { text: 'Done for now.', delayMs: 2500 };
    return {
      toolCalls: [
        { id: 'j', name: 'background_run', arguments: { command: `exec -a ${marker} sleep 120`, timeout: 300 } },
        { id: 's', name: 'subagent', arguments: { task: SUB_TASK, agent_type: 'explore', run_in_background: true } },
      ],
    };
  });
  const handle = await h.start({ prompt: 'Start children', model: scenario, workspace: h.workspace(), permissionMode: 'auto', waitForJobs });
  await waitFor(async () => (isMarkedRunning(marker) ? true : undefined), 'the job process to start');
  await waitFor(async () => (subagentRequests(scenario) >= 2 ? true : undefined), 'the subagent to call the model');
  return { handle, marker, scenario };
}

function subagentRequests(scenario: string): number {
  return h.model.requestsFor(scenario).filter((r) => r.body.messages.some((m: { content: unknown }) => isPromptSent(m.content, SUB_TASK))).length;
}

/** Both children closed, the process gone, and the subagent calls the model no more. */
async function expectChildrenEnded({ handle, marker, scenario }: RunWithChildren): Promise<void> {
  for (const taskId of ['job-1', 'sub-2']) {
    const child = h.client.workflow.getHandle(`${handle.workflowId}.${taskId}`);
    const status = await waitFor(
      async () => {
        const name = (await child.describe()).status.name;
        return name === 'RUNNING' ? undefined : name;
      },
      `${taskId} to close`,
      15_000,
    );
    expect([taskId, status]).toEqual([taskId, expect.stringMatching(/^(CANCELLED|TERMINATED)$/)]);
  }
  await waitFor(async () => (isMarkedRunning(marker) ? undefined : true), 'the job process to be killed', 15_000);
  const calls = subagentRequests(scenario);
  await new Promise((r) => setTimeout(r, 3000));
  expect(subagentRequests(scenario)).toBe(calls);
}

test('a terminated run: its job and background subagent are cancelled by the server, the process killed', async () => {
  const run = await startRunWithChildren('terminated', true);
  await waitFor(async () => ((await run.handle.query(statusQuery)).phase === 'waiting_for_jobs' ? true : undefined), 'the run to wait for its jobs');
  await run.handle.terminate('test: terminate the run');
  expect((await run.handle.describe()).status.name).toBe('TERMINATED');
  await expectChildrenEnded(run);
}, 60_000);

test('a cancelled run: its job and background subagent are cancelled', async () => {
  const run = await startRunWithChildren('cancelled', true);
  await run.handle.cancel();
  await expect(run.handle.result()).rejects.toThrow();
  expect((await run.handle.describe()).status.name).toBe('CANCELLED');
  await expectChildrenEnded(run);
}, 60_000);

test('a run that completes without waiting for its jobs: the job and background subagent are cancelled', async () => {
  const run = await startRunWithChildren('completed', false);
  expect(await run.handle.result()).toMatchObject({ text: 'Done for now.' });
  await expectChildrenEnded(run);
}, 60_000);
