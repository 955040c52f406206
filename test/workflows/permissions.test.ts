import { existsSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { Harness } from '../support/harness';
import { pendingRequest, waitFor } from '../support/wait-for';
import { decidePermissionUpdate, messagesQuery, permissionDecisionSignal, statusQuery, stepsQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

/** A run whose model asks for `touch <file>` (bash asks in default mode), then ends. */
async function runAsking(files: string[], extra: Record<string, unknown> = {}) {
  const scenario = `ask-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: files.map((file, i) => ({ id: `req_${i + 1}`, name: 'bash', arguments: { command: `touch ${file}` } })) },
    { text: 'Finished.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'make files', model: scenario, workspace, ...extra });
  return { handle, workspace };
}

const resultsOf = async (handle: Awaited<ReturnType<typeof runAsking>>['handle']) =>
  ((await handle.query(messagesQuery))[2]?.content ?? []) as Array<{ content: string; is_error: boolean }>;

test('asking records a pending request, shows it in status and in search attributes, and a signal allows it', async () => {
  const { handle, workspace } = await runAsking(['a.txt']);
  const pending = await pendingRequest(handle);
  expect(pending).toMatchObject({ toolCallId: 'req_1', tool: 'bash', input: { command: 'touch a.txt', timeout: 30 } });
  // The runtime's own id (the run id's tail and a counter), not the model's.
  expect(pending.requestId).toMatch(/^[0-9a-f]{8}-1$/);
  expect(Date.parse(pending.deadline) - Date.parse(pending.requestedAt)).toBe(15 * 60_000);
  const status = await handle.query(statusQuery);
  expect(status.phase).toBe('awaiting_approval');
  await waitFor(async () => {
    const description = await handle.describe();
    return description.searchAttributes.BareAgentWaitingForHuman?.[0] === true ? true : undefined;
  }, 'the waiting-for-human search attribute');
  await handle.signal(permissionDecisionSignal, { requestId: pending.requestId, decision: 'allow' });
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  expect(existsSync(path.join(workspace, 'a.txt'))).toBe(true);
  expect((await handle.describe()).searchAttributes.BareAgentWaitingForHuman).toEqual([false]);
});

test('the decidePermission update allows, and rejects an unknown id and a second decision', async () => {
  const { handle, workspace } = await runAsking(['b.txt']);
  const { requestId } = await pendingRequest(handle);
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: 'nope', decision: 'allow' }] })).rejects.toThrow(
    WorkflowUpdateFailedError,
  );
  await expect(
    handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: 'nope', decision: 'allow' }] }),
  ).rejects.toMatchObject({ cause: { message: 'no pending permission request with id nope' } });
  // A bad decision as an outside client (no types) could send it, by the update's name.
  await expect(handle.executeUpdate(decidePermissionUpdate.name, { args: [{ requestId, decision: 'maybe' }] })).rejects.toMatchObject({
    cause: { message: expect.stringContaining('invalid decision: decision:') },
  });
  expect(await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'allow' }] })).toEqual({
    requestId,
    decision: 'allow',
  });
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'deny' }] })).rejects.toMatchObject({
    cause: { message: `permission request ${requestId} was already decided` },
  });
  await handle.result();
  expect(existsSync(path.join(workspace, 'b.txt'))).toBe(true);
});

test('a denial becomes "User denied." and the tool does not run', async () => {
  const { handle, workspace } = await runAsking(['c.txt']);
  const { requestId } = await pendingRequest(handle);
  await handle.signal(permissionDecisionSignal, { requestId, decision: 'deny', reason: 'no' });
  await handle.result();
  expect(await resultsOf(handle)).toEqual([{ type: 'tool_result', tool_use_id: 'req_1', content: 'User denied.', is_error: true }]);
  expect(existsSync(path.join(workspace, 'c.txt'))).toBe(false);
});

test('no answer within approvalTimeout denies (fail closed) and the step record says it timed out', async () => {
  const { handle, workspace } = await runAsking(['d.txt'], { approvalTimeout: '1s' });
  await handle.result();
  expect((await resultsOf(handle))[0]?.content).toBe('User denied.');
  expect(existsSync(path.join(workspace, 'd.txt'))).toBe(false);
  const steps = await handle.query(stepsQuery);
  expect(steps.find((s) => s.reason === 'approval_timed_out')).toMatchObject({ tools: ['bash touch d.txt'] });
});

test('two requests in one response are asked one after the other, in order', async () => {
  const { handle, workspace } = await runAsking(['e.txt', 'f.txt']);
  const first = await pendingRequest(handle);
  expect(first.toolCallId).toBe('req_1');
  expect((await handle.query(statusQuery)).pendingPermissions).toHaveLength(1);
  // The second is not asked yet: deciding it now, under the id it will get, is refused.
  const secondId = first.requestId.replace(/-1$/, '-2');
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: secondId, decision: 'allow' }] })).rejects.toThrow();
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: first.requestId, decision: 'deny' }] });
  expect(await pendingRequest(handle, 'req_2')).toMatchObject({ requestId: secondId });
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: secondId, decision: 'allow' }] });
  await handle.result();
  expect((await resultsOf(handle)).map((r) => r.content)).toEqual(['User denied.', '(no output; exit code 0)']);
  expect([existsSync(path.join(workspace, 'e.txt')), existsSync(path.join(workspace, 'f.txt'))]).toEqual([false, true]);
});

test('a malformed signal is ignored with a log line, not a crash', async () => {
  const { handle } = await runAsking(['g.txt']);
  const { requestId } = await pendingRequest(handle);
  await handle.signal(permissionDecisionSignal, { requestId, decision: 'perhaps' } as never);
  await handle.signal(permissionDecisionSignal, 'garbage' as never);
  expect((await handle.query(statusQuery)).pendingPermissions).toHaveLength(1);
  await handle.signal(permissionDecisionSignal, { requestId, decision: 'allow' });
  await expect(handle.result()).resolves.toMatchObject({ text: 'Finished.' });
});

test('a decision sent while no worker runs is applied when a worker returns', async () => {
  const { handle, workspace } = await runAsking(['h.txt']);
  const { requestId } = await pendingRequest(handle);
  await h.stopWorkers();
  await handle.signal(permissionDecisionSignal, { requestId, decision: 'allow' });
  await new Promise((r) => setTimeout(r, 500));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await h.startWorker();
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  expect(existsSync(path.join(workspace, 'h.txt'))).toBe(true);
});

test('an answer holds for its own request only: a provider that reuses a call id is asked again', async () => {
  const scenario = `reused-id-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'same', name: 'bash', arguments: { command: 'touch first.txt' } }] },
    { toolCalls: [{ id: 'same', name: 'bash', arguments: { command: 'touch second.txt' } }] },
    { text: 'Finished.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'two files', model: scenario, workspace, stream: false });
  const first = await pendingRequest(handle, 'same');
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: first.requestId, decision: 'allow' }] });
  await waitFor(async () => (existsSync(path.join(workspace, 'first.txt')) ? true : undefined), 'the first command');
  // The second call carries the same call id: it is a new question under a new request id, not the first answer again.
  const second = await waitFor(async () => (await handle.query(statusQuery)).pendingPermissions.find((p) => p.requestId !== first.requestId), 'the second question');
  expect(second).toMatchObject({ toolCallId: 'same', input: { command: 'touch second.txt' } });
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: second.requestId, decision: 'deny' }] });
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  expect(existsSync(path.join(workspace, 'second.txt'))).toBe(false);
});

test('calls with empty or shared ids get ids of their own, each answerable', async () => {
  const scenario = `empty-ids-${Math.random()}`;
  h.model.setScenario(scenario, [
    {
      toolCalls: [
        { id: '', name: 'bash', arguments: { command: 'touch a.txt' } },
        { id: 'dup', name: 'bash', arguments: { command: 'touch b.txt' } },
        { id: 'dup', name: 'bash', arguments: { command: 'touch c.txt' } },
      ],
    },
    { text: 'Finished.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'three files', model: scenario, workspace, stream: false });
  const asked: string[] = [];
  for (const expected of ['call_1_1', 'dup', 'call_1_2']) {
    const pending = await pendingRequest(handle, expected);
    asked.push(pending.toolCallId);
    await handle.signal(permissionDecisionSignal, { requestId: pending.requestId, decision: expected === 'dup' ? 'deny' : 'allow' });
  }
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  expect(asked).toEqual(['call_1_1', 'dup', 'call_1_2']);
  expect(['a.txt', 'b.txt', 'c.txt'].map((f) => existsSync(path.join(workspace, f)))).toEqual([true, false, true]);
});
