import { existsSync } from 'node:fs';
import path from 'node:path';
import { decidePermissionUpdate, permissionDecisionSignal, statusQuery } from '../../src/common/contract';
import { inputDigest } from '../../src/loop/input-digest';
import { Harness } from '../support/harness';
import { pendingRequest, waitFor } from '../support/wait-for';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

/**
 * The red team's case: one approver has `mkdir -p build` (call X) on screen, a second denies it,
 * the model asks again under the same call id X for `echo PWNED > proof`. The first approver's
 * answer, by the request id or the digest of what it was shown, must not approve the new call.
 */
test('a stale answer (the old request id, or the digest of the old input) cannot approve a call re-asked under the same call id', async () => {
  const scenario = `stale-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'X', name: 'bash', arguments: { command: 'mkdir -p build' } }] },
    { toolCalls: [{ id: 'X', name: 'bash', arguments: { command: 'echo PWNED > proof' } }] },
    { text: 'Finished.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'build', model: scenario, workspace });
  const shown = await pendingRequest(handle, 'X');
  const shownDigest = inputDigest(shown.tool, shown.input);
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: shown.requestId, decision: 'deny', reason: 'second approver' }] });
  const reasked = await waitFor(async () => (await handle.query(statusQuery)).pendingPermissions.find((p) => p.requestId !== shown.requestId), 'the question asked again');
  expect(reasked).toMatchObject({ toolCallId: 'X', input: { command: 'echo PWNED > proof' } });

  // The first approver's click: the request id of the card it was shown...
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: shown.requestId, decision: 'allow', inputDigest: shownDigest }] })).rejects.toMatchObject({
    cause: { message: `permission request ${shown.requestId} was already decided` },
  });
  // ...or the new id with the digest of the old input, by update and by signal.
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: reasked.requestId, decision: 'allow', inputDigest: shownDigest }] })).rejects.toMatchObject({
    cause: { message: expect.stringContaining('asks about another input than the one shown') },
  });
  await handle.signal(permissionDecisionSignal, { requestId: reasked.requestId, decision: 'allow', inputDigest: shownDigest });
  await handle.signal(permissionDecisionSignal, { requestId: shown.requestId, decision: 'allow' });
  // The signals were ignored: the question is still open, and nothing ran.
  await new Promise((r) => setTimeout(r, 1000));
  expect((await handle.query(statusQuery)).pendingPermissions.map((p) => p.requestId)).toEqual([reasked.requestId]);
  expect(existsSync(path.join(workspace, 'proof'))).toBe(false);

  // An answer with the digest of what is asked now holds.
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: reasked.requestId, decision: 'deny', inputDigest: inputDigest(reasked.tool, reasked.input) }] });
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  expect(existsSync(path.join(workspace, 'proof'))).toBe(false);
  expect(existsSync(path.join(workspace, 'build'))).toBe(false);
});

test('a malformed digest is refused naming the field', async () => {
  const scenario = `bad-digest-${Math.random()}`;
  h.model.setScenario(scenario, [{ toolCalls: [{ id: 'c', name: 'bash', arguments: { command: 'touch a' } }] }, { text: 'Finished.' }]);
  const handle = await h.start({ prompt: 'x', model: scenario, workspace: h.workspace(), approvalTimeout: '30s' });
  const { requestId } = await pendingRequest(handle);
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'allow', inputDigest: 'abc' }] })).rejects.toMatchObject({
    cause: { message: expect.stringContaining('inputDigest: must be 64 lowercase hex digits') },
  });
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'deny' }] });
  await handle.result();
});
