import type { WorkflowHandle } from '@temporalio/client';
import { inputDigest } from '../../src/loop/input-digest';
import { Harness } from '../support/harness';
import { pendingRequest, requestIdFor, waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { permissionDecisionSignal, stepsQuery } from '../../src/common/contract';

let h: Harness;
let workerHook: WebhookReceiver;
beforeAll(async () => {
  // The receivers are on loopback: the worker's egress policy refuses them unless the operator allows it (test/security/egress.test.ts).
  process.env.BAREAGENT_WORKER_EGRESS_ALLOW = '127.0.0.1';
  workerHook = await WebhookReceiver.start();
  h = await Harness.create();
  // The path stands for the token a real webhook URL carries: it must never show in the run.
  await h.startWorker({ notifyWebhook: workerHook.url('/worker-secret-path') });
});
afterAll(async () => {
  await h.close();
  await workerHook.close();
});

/** A run that asks to `touch <file>`; the test answers. */
async function asking(file: string, extra: Record<string, unknown> = {}): Promise<WorkflowHandle> {
  const scenario = `notify-${Math.random()}`;
  h.model.setScenario(scenario, [{ toolCalls: [{ id: `req_${file}`, name: 'bash', arguments: { command: `touch ${file}` } }] }, { text: 'Finished.' }]);
  return h.start({ prompt: 'make a file', model: scenario, workspace: h.workspace(), stream: false, ...extra });
}

const hooksFor = (receiver: WebhookReceiver, handle: WorkflowHandle) => receiver.received.filter((r) => r.body?.workflowId === handle.workflowId);

async function notifyAttempts(handle: WorkflowHandle) {
  const history = await handle.fetchHistory();
  const scheduled = new Set(
    (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'notifyHuman').map((e) => String(e.eventId)),
  );
  return (history.events ?? [])
    .map((e) => e.activityTaskStartedEventAttributes)
    .filter((a) => a && scheduled.has(String(a.scheduledEventId)))
    .map((a) => ({ attempt: a?.attempt, lastFailure: a?.lastFailure?.message ?? '' }));
}

test("the worker's webhook gets who waits, for what, until when, and how to answer; the run goes on when answered", async () => {
  const handle = await asking('a.txt');
  const pending = await pendingRequest(handle);
  const [hook] = await waitFor(async () => (hooksFor(workerHook, handle).length ? hooksFor(workerHook, handle) : undefined), 'the webhook');
  const id = `${handle.workflowId} ${pending.requestId} --digest ${inputDigest(pending.tool, pending.input)}`;
  expect(hook).toMatchObject({
    path: '/worker-secret-path',
    body: {
      type: 'permission_request',
      workflowId: handle.workflowId,
      requestId: pending.requestId,
      toolCallId: 'req_a.txt',
      tool: 'bash',
      inputDigest: inputDigest(pending.tool, pending.input),
      inputSummary: 'bash touch a.txt (timeout: 30)',
      inputSummaryCut: false,
      requestedAt: pending.requestedAt,
      deadline: pending.deadline,
      commands: {
        approve: `bareagent approve ${id}`,
        approveAlways: `bareagent approve ${id} --always`,
        deny: `bareagent deny ${id}`,
        signal: expect.stringContaining(`--workflow-id ${handle.workflowId} --name permissionDecision`),
      },
    },
  });
  await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'req_a.txt'), decision: 'allow' });
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  expect(hooksFor(workerHook, handle)).toHaveLength(1);
  expect(await notifyAttempts(handle)).toEqual([{ attempt: 1, lastFailure: '' }]);
});

test('a webhook that answers 500 is retried with backoff, then given up and recorded; the run still waits and goes on', async () => {
  const refusing = await WebhookReceiver.start(() => 500);
  try {
    const handle = await asking('b.txt', { notify: { webhook: refusing.url('/run-secret-path') } });
    const failed = await waitFor(async () => (await handle.query(stepsQuery)).find((s) => s.reason === 'notification_failed'), 'the given-up step', 60_000);
    const port = new URL(refusing.url()).host;
    const request = await requestIdFor(handle, 'req_b.txt');
    expect(failed.detail).toBe(`request ${request}: run webhook (${port}): HTTP 500; given up, the run goes on`);
    expect(JSON.stringify(await handle.query(stepsQuery))).not.toContain('secret-path');
    const times = hooksFor(refusing, handle).map((r) => r.at);
    expect(times).toHaveLength(5);
    // Backoff: the waits grow (1 s, 2 s, 4 s, 8 s).
    const waits = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(waits[3]).toBeGreaterThan(waits[0] as number);
    expect((await pendingRequest(handle)).toolCallId).toBe('req_b.txt');
    await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'req_b.txt'), decision: 'allow' });
    expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  } finally {
    await refusing.close();
  }
}, 90_000);

test('a webhook that hangs is timed out and tried again; a 404 is not retried', async () => {
  const hanging = await WebhookReceiver.start((i) => (i === 0 ? 'hang' : 200));
  const missing = await WebhookReceiver.start(() => 404);
  try {
    const handle = await asking('c.txt', { notify: { webhook: hanging.url() } });
    await waitFor(async () => (hooksFor(hanging, handle).length >= 2 ? true : undefined), 'the second attempt', 30_000);
    await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'req_c.txt'), decision: 'allow' });
    await handle.result();
    const [attempt] = await notifyAttempts(handle);
    expect(attempt).toMatchObject({ attempt: 2, lastFailure: expect.stringContaining('no answer within 5 s') });

    const second = await asking('d.txt', { notify: { webhook: missing.url() } });
    const failed = await waitFor(async () => (await second.query(stepsQuery)).find((s) => s.reason === 'notification_failed'), 'the given-up step');
    expect(failed.detail).toContain('HTTP 404');
    expect(hooksFor(missing, second)).toHaveLength(1);
    await second.signal(permissionDecisionSignal, { requestId: await requestIdFor(second, 'req_d.txt'), decision: 'deny' });
    expect(await second.result()).toMatchObject({ text: 'Finished.' });
  } finally {
    await hanging.close();
    await missing.close();
  }
}, 60_000);

test('an answer stops the retries of a webhook that still refuses', async () => {
  const refusing = await WebhookReceiver.start(() => 503);
  try {
    const handle = await asking('e.txt', { notify: { webhook: refusing.url() } });
    await waitFor(async () => (hooksFor(refusing, handle).length ? true : undefined), 'the first attempt');
    await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'req_e.txt'), decision: 'allow' });
    expect(await handle.result()).toMatchObject({ text: 'Finished.' });
    await new Promise((r) => setTimeout(r, 4000));
    expect(hooksFor(refusing, handle).length).toBeLessThanOrEqual(2);
    expect((await handle.query(stepsQuery)).some((s) => s.reason === 'notification_failed')).toBe(false);
  } finally {
    await refusing.close();
  }
});
