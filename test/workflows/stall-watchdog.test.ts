import { existsSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import { type ApplicationFailure } from '@temporalio/common';
import { decidePermissionUpdate, messagesQuery, statusQuery, stepsQuery } from '../../src/common/contract';
import type { Message } from '../../src/common/messages';
import { createToolWorker } from '../../src/worker/create-worker';
import { byPrompt } from '../support/by-prompt';
import { Harness } from '../support/harness';
import { requestIdFor, waitFor } from '../support/wait-for';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const toolResults = (messages: Message[], at: number) => (messages[at]?.content ?? []) as Array<{ content: string; is_error: boolean }>;

/**
 * A worker holding the workspace on its own tool queue, which `leave()` shuts down: from then on a
 * tool call of the run is an activity no worker ever takes. `body` runs with it; it is gone after.
 */
async function withToolHost(suffix: string, body: (host: { queue: string; leave(): void }) => Promise<void>): Promise<void> {
  const queue = `${h.taskQueue}-${suffix}`;
  const connection = await NativeConnection.connect({ address: h.env.address });
  const worker: Worker = await createToolWorker({ connection, namespace: 'default', taskQueue: queue });
  const running = worker.run();
  const leave = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  try {
    await body({ queue, leave });
  } finally {
    leave();
    await running;
    await connection.close();
  }
}

/** A subagent's first turn: the workspace host goes away as it decides to run a command. */
const leaveThenRun = (host: { leave(): void }, command: string) => (index: number) => {
  if (index > 0) return { text: 'unexpected second turn' };
  host.leave();
  return { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command } }], delayMs: 3000 };
};

// The three runs below spend their time waiting out a 30 s stall timeout (the shortest allowed):
// they wait side by side, on their own tool queues and scripted models.
const stalling = (queue: string) => ({ permissionMode: 'bypass', toolTaskQueue: queue, checkpoints: false, projectInstructions: false, stallTimeout: '30s' });

test.concurrent('a subagent whose tool call no worker takes is stopped at its stall timeout and reported to its parent as a failed call', async () => {
  await withToolHost('tools', async (host) => {
    const workspace = h.workspace();
    h.model.setScenario(
      'stall',
      byPrompt({
        'Delegate the build': [
          { toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'Run the build' } }] },
          { text: 'The subagent stalled; nothing was built.' },
        ],
        'Run the build': leaveThenRun(host, 'touch built.txt'),
      }),
    );
    const handle = await h.start({ prompt: 'Delegate the build', model: 'stall', workspace, ...stalling(host.queue) });
    expect(await handle.result()).toMatchObject({ text: 'The subagent stalled; nothing was built.' });

    // The parent waited for its subagent without stalling itself, and its model got the failure.
    const [result] = toolResults(await handle.query(messagesQuery), 2);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain('Stalled: no step and no heartbeat for 30 s (stallTimeout) while running tool');

    const child = h.client.workflow.getHandle(`${handle.workflowId}.sub-1`);
    const failure = await child.result().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('NoProgress');
    const steps = await child.query(stepsQuery);
    expect(steps.at(-1)).toMatchObject({ reason: 'stop:stalled' });
    // The first command the gone host would have taken: the round's step-0 checkpoint, before its bash.
    expect(steps.at(-1)?.detail).toContain('checkpointWorkspace scheduled, attempt 1');
    // Not before its time: the child started, and stopped no sooner than 30 s later.
    const described = await child.describe();
    expect(described.closeTime!.getTime() - described.startTime.getTime()).toBeGreaterThanOrEqual(30_000);
    expect(existsSync(path.join(workspace, 'built.txt'))).toBe(false);
  });
}, 150_000);

test.concurrent('a background subagent that stalls comes back to its parent as a failed job', async () => {
  await withToolHost('bg-tools', async (host) => {
    h.model.setScenario(
      'bg-stall',
      byPrompt({
        'Build in the background': [
          { toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'Run the slow build', run_in_background: true } }] },
          { text: 'Waiting for the build.' },
          { text: 'The background build stalled.' },
        ],
        'Run the slow build': leaveThenRun(host, 'true'),
      }),
    );
    const handle = await h.start({ prompt: 'Build in the background', model: 'bg-stall', workspace: h.workspace(), ...stalling(host.queue) });
    expect(await handle.result()).toMatchObject({ text: 'The background build stalled.' });
    const notice = (await handle.query(messagesQuery)).find((m) => m.role === 'system')?.content;
    expect(notice).toContain('- Task sub-1: failed - NoProgress: Stalled: no step and no heartbeat for 30 s');
  });
}, 150_000);

test.concurrent('a question waiting for a human and a long command that heartbeats are not a stall', async () => {
  h.model.setScenario('patient', [
    { toolCalls: [{ id: 'l1', name: 'bash', arguments: { command: 'sleep 40 && touch slept.txt', timeout: 90 } }] },
    { text: 'Slept.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'Sleep on it', model: 'patient', workspace, stallTimeout: '30s', checkpoints: false });
  await waitFor(async () => (await handle.query(statusQuery)).pendingPermissions[0], 'the question about the command');
  await new Promise((r) => setTimeout(r, 35_000)); // longer than the stall timeout, waiting for a human
  expect((await handle.query(statusQuery)).phase).toBe('awaiting_approval');
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 'l1'), decision: 'allow' }] });
  expect(await handle.result()).toMatchObject({ text: 'Slept.' });
  expect(existsSync(path.join(workspace, 'slept.txt'))).toBe(true);
  expect((await handle.query(stepsQuery)).map((s) => s.reason)).not.toContain('stop:stalled');
}, 150_000);

test('a stall timeout under 30 seconds is refused at once, naming the field', async () => {
  const failure = await h.execute({ prompt: 'x', stallTimeout: '5s' }).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(((failure as WorkflowFailedError).cause as ApplicationFailure).message).toContain('stallTimeout');
});
