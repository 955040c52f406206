import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { statusQuery } from '../../src/common/contract';
import { startApproverUi, type ApproverUi } from '../support/approver-ui';
import { Harness } from '../support/harness';
import { runCli } from '../support/cli';
import { requestIdFor, waitFor } from '../support/wait-for';

/**
 * Reading a run never touches it: `status`, the approvers' page and `list` take, fail or delay no
 * workflow task of any run, and leave no poller on its task queue, so the next `bareagent run`
 * does not wait on a phantom worker. Proved on the history's events and the queue's poller list.
 */
let h: Harness;
let ui: ApproverUi;
const suffix = randomUUID().slice(0, 8);
/** A queue no worker has ever polled. */
const lonelyQueue = `reads-lonely-${suffix}`;
const T = temporal.api.enums.v1.EventType;

const envFor = (taskQueue: string) => ({
  TEMPORAL_ADDRESS: h.env.address,
  BAREAGENT_TASK_QUEUE: taskQueue,
  BAREAGENT_UI_PORT: String(h.env.uiPort),
  BAREAGENT_WORKFLOW_BUNDLE: h.env.bundlePath,
  OPENAI_BASE_URL: h.model.url,
  OPENAI_API_KEY: 'sk-test-secret-never-in-history',
});

beforeAll(async () => {
  h = await Harness.create();
  ui = await startApproverUi({ ...envFor(lonelyQueue) });
});
afterAll(async () => {
  await ui.stop();
  await h.close();
});

async function eventTypes(handle: WorkflowHandle): Promise<number[]> {
  return ((await handle.fetchHistory()).events ?? []).map((event) => event.eventType ?? 0);
}

async function pollers(taskQueue: string): Promise<string[]> {
  const response = await h.client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, taskQueueType: 1 });
  return (response.pollers ?? []).map((poller) => poller.identity ?? '');
}

/** Everything a person reads a run with: `status` (text and JSON), the run's page, `list`. */
async function readEverything(workflowId: string, taskQueue: string) {
  const env = envFor(taskQueue);
  let t = Date.now();
  const status = await runCli(['status', workflowId], env);
  console.log(`status: ${Date.now() - t} ms`);
  t = Date.now();
  const json = await runCli(['status', workflowId, '--json'], env);
  console.log(`status --json: ${Date.now() - t} ms`);
  t = Date.now();
  const page = await fetch(`${ui.url}/runs/${workflowId}`, { headers: { authorization: `Bearer ${ui.token}` } });
  console.log(`page: ${Date.now() - t} ms`);
  t = Date.now();
  const list = await runCli(['list', '--limit', '50'], env);
  console.log(`list: ${Date.now() - t} ms`);
  return { status, json, page: { code: page.status, html: await page.text() }, list };
}

test('a run no worker serves: reading it takes no workflow task, and the next `bareagent run` finds no phantom worker', async () => {
  const handle = await h.client.workflow.start('agentRun', { taskQueue: lonelyQueue, workflowId: `reads-lonely-${suffix}`, args: [{ prompt: 'nobody serves me', workspace: h.workspace() }] });
  const before = await eventTypes(handle);
  expect(before).toEqual([T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED]);
  // Visibility is eventually consistent: `list` is read once the server lists the run at all.
  await waitFor(async () => {
    for await (const run of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) if (run.workflowId === handle.workflowId) return true;
    return undefined;
  }, 'the run in the visibility store');

  const read = await readEverything(handle.workflowId, lonelyQueue);
  expect(read.status.code).toBe(2);
  expect(read.status.stderr).toContain(`Run ${handle.workflowId} has not started: no worker has taken its first task on task queue "${lonelyQueue}"`);
  expect(read.status.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(read.page.code).toBe(200);
  expect(read.page.html).toContain('has not started');
  expect(read.list.stdout).toContain(handle.workflowId);

  // Not a task taken, failed or started: the history is as it was, and nothing polls the queue.
  expect(await eventTypes(handle)).toEqual(before);
  expect(await pollers(lonelyQueue)).toEqual([]);
  await handle.terminate('test over');

  // The page's process is still running: had it polled, its poller would count as a live worker.
  const model = `after-reads-${suffix}`;
  h.model.setScenario(model, [{ text: 'ANSWER AFTER READS' }]);
  const run = await runCli(['run', 'say it', '--model', model, '--workspace', h.workspace(), '--id', `${model}-run`], envFor(lonelyQueue), undefined, 150_000);
  expect({ code: run.code, timedOut: run.timedOut }).toEqual({ code: 0, timedOut: undefined });
  expect(run.stdout).toContain('ANSWER AFTER READS');
  expect(run.stderr).toContain('starting one in this process');
  expect(run.stderr).not.toContain('No worker has picked up');
}, 300_000);

test('an open run whose worker stopped, with a task waiting: reads answer from its history and leave the task to a worker', async () => {
  const model = `stopped-${suffix}`;
  h.model.setScenario(model, [{ text: 'Cleaning.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] }, { text: 'Done.' }]);
  await h.startWorker();
  const handle = await h.start({ prompt: 'clean up', model, workspace: h.workspace({ 'build/x': 'x' }) }, `reads-stopped-${suffix}`);
  await waitFor(async () => ((await handle.query(statusQuery)).pendingPermissions.length === 1 ? true : undefined), 'the permission question');

  // A live worker serves it: asked the usual way.
  const live = await runCli(['status', handle.workflowId, '--json'], envFor(h.taskQueue));
  expect(JSON.parse(live.stdout)).toMatchObject({ phase: 'awaiting_approval', pendingPermissions: [{ toolCallId: 'call_rm' }] });

  await h.stopWorkers();
  // A follow-up while no worker runs: a workflow task is scheduled that only a real worker may take.
  await handle.signal('userMessage', { text: 'and tidy the docs' });
  const before = await eventTypes(handle);
  expect(before.at(-1)).toBe(T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);

  const read = await readEverything(handle.workflowId, h.taskQueue);
  expect(read.json.stderr).toBe('');
  expect(JSON.parse(read.json.stdout)).toMatchObject({ phase: 'awaiting_approval', pendingPermissions: [{ toolCallId: 'call_rm', tool: 'bash' }] });
  expect(read.status.stdout).toContain('waits for you:');
  expect(read.page.html).toContain('rm -rf build');

  // The server may time out the task on the stopped worker's sticky queue and schedule it again
  // on the normal one: that is the only change allowed. No task started, none failed.
  const after = await eventTypes(handle);
  expect(after.slice(0, before.length)).toEqual(before);
  expect(after.slice(before.length).filter((type) => type !== T.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT && type !== T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)).toEqual([]);
  expect(after).not.toContain(T.EVENT_TYPE_WORKFLOW_TASK_FAILED);

  // The task is still there for a worker: one that starts now takes it and the run goes on.
  await h.startWorker();
  await handle.executeUpdate('decidePermission', { args: [{ requestId: await requestIdFor(handle, 'call_rm'), decision: 'deny' }] });
  await handle.terminate('test over');
  expect(await eventTypes(handle)).not.toContain(T.EVENT_TYPE_WORKFLOW_TASK_FAILED);
  await h.stopWorkers();
}, 240_000);

test('a closed run: reads answer with no worker, and write nothing to its history', async () => {
  const model = `closed-${suffix}`;
  h.model.setScenario(model, [{ text: 'CLOSED ANSWER.' }]);
  await h.startWorker();
  const handle = await h.start({ prompt: 'answer (closed)', model, workspace: h.workspace() }, `reads-closed-${suffix}`);
  await handle.result();
  await h.stopWorkers();
  const before = await eventTypes(handle);
  const read = await readEverything(handle.workflowId, h.taskQueue);
  expect(JSON.parse(read.json.stdout)).toMatchObject({ phase: 'completed', iteration: 1 });
  expect(read.page.html).toContain('CLOSED ANSWER.');
  expect(await eventTypes(handle)).toEqual(before);
}, 240_000);
