/**
 * Which open runs a starting worker describes for orphaned attempts (src/worker/orphaned-attempts.ts):
 * a run parked on a human holds no attempt and is skipped; a run at work, and one that has not yet
 * set the attribute (no worker took its first task), are looked at. Read from the dev server's
 * own visibility store, which is SQL like a production one.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { google } from '@temporalio/proto';
import { openRunsToCheck } from '../../src/worker/orphaned-attempts';
import { Harness } from '../support/harness';
import { pendingRequest, waitFor } from '../support/wait-for';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const idsOn = async (taskQueue: string) =>
  (await openRunsToCheck(h.client.workflowService, { namespace: h.client.options.namespace, taskQueue })).map((run) => run.workflowId);

test('a run waiting for a human is not described; a working run and one that never set the attribute are', async () => {
  const asking = `ask-${randomUUID()}`;
  h.model.setScenario(asking, [{ toolCalls: [{ id: 'req_1', name: 'bash', arguments: { command: 'touch a.txt' } }] }, { text: 'Finished.' }]);
  const waiting = await h.start({ prompt: 'make a file', model: asking, workspace: h.workspace() });
  await pendingRequest(waiting);

  const hanging = `hang-${randomUUID()}`;
  h.model.setScenario(hanging, () => ({ hang: true }));
  const working = await h.start({ prompt: 'think long', model: hanging, stream: false, workspace: h.workspace() });
  await waitFor(async () => h.model.requestsFor(hanging)[0], 'the working run at its model call');

  // On a queue no worker polls, the run never runs its first task, so it never sets the attribute.
  const idleQueue = `idle-${randomUUID()}`;
  const unstarted = await h.client.workflow.start('agentRun', { taskQueue: idleQueue, workflowId: `unstarted-${randomUUID()}`, args: [{ prompt: 'never runs', workspace: h.workspace() }] });

  // Visibility lags the runs: wait until it holds the waiting run as waiting, then read the filtered list.
  await waitFor(async () => {
    for await (const run of h.client.workflow.list({ query: `WorkflowId = '${waiting.workflowId}' AND BareAgentWaitingForHuman = true` })) return run;
    return undefined;
  }, 'the waiting run indexed as waiting');
  const checked = await waitFor(async () => {
    const ids = await idsOn(h.taskQueue);
    return ids.includes(working.workflowId) ? ids : undefined;
  }, 'the working run listed');
  expect(checked).not.toContain(waiting.workflowId);
  expect(await waitFor(async () => ((await idsOn(idleQueue)).includes(unstarted.workflowId) ? true : undefined), 'the unstarted run listed')).toBe(true);

  await Promise.all([waiting.terminate('test over'), working.terminate('test over'), unstarted.terminate('test over')]);
});

test("on a namespace without BareAgent's search attributes, every open run is looked at", async () => {
  const namespace = `bare-${randomUUID().slice(0, 8)}`;
  await h.client.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: google.protobuf.Duration.fromObject({ seconds: 86_400 }) });
  const taskQueue = `idle-${randomUUID()}`;
  const run = await waitFor(
    () => new Client({ connection: h.client.connection, namespace }).workflow.start('agentRun', { taskQueue, workflowId: `plain-${randomUUID()}`, args: [{ prompt: 'never runs' }] }),
    'the new namespace ready',
  );
  const ids = await waitFor(async () => {
    const listed = await openRunsToCheck(h.client.workflowService, { namespace, taskQueue });
    return listed.length > 0 ? listed.map((r) => r.workflowId) : undefined;
  }, 'the run listed without the attribute filter');
  expect(ids).toEqual([run.workflowId]);
  await run.terminate('test over');
});
