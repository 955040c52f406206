import type { WorkflowHandle } from '@temporalio/client';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../support/harness';
import { shortHistoryHarness } from '../support/short-history-server';
import { pendingRequest, requestIdFor } from '../support/wait-for';
import { decidePermissionUpdate, messagesQuery, permissionDecisionSignal, statusQuery, stepsQuery } from '../../src/common/contract';

/** Its own dev server with short histories, so that the last test crosses continue-as-new quickly. */
const harness = shortHistoryHarness('bareagent-allow-always-');
let h: Harness;
beforeAll(() => {
  h = harness();
});

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', arguments: { command } }] });

async function toolResults(handle: WorkflowHandle): Promise<Map<string, string>> {
  const messages = await handle.query(messagesQuery);
  const results = new Map<string, string>();
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) if (block.type === 'tool_result') results.set(block.tool_use_id, block.content);
  }
  return results;
}

test('allow_always through the update: the same call later runs unasked, another one is still asked', async () => {
  const scenario = `always-${Math.random()}`;
  h.model.setScenario(scenario, [bash('r1', 'touch a.txt'), bash('r2', 'touch a.txt'), bash('r3', 'touch b.txt'), { text: 'Finished.' }]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'files', model: scenario, workspace, stream: false });
  const { requestId } = await pendingRequest(handle, 'r1');
  expect(await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'allow_always' }] })).toEqual({
    requestId,
    decision: 'allow_always',
    rule: 'bash(touch a.txt)',
  });
  // r2 is the same command: the next question is r3.
  const next = await pendingRequest(handle);
  expect(next.toolCallId).toBe('r3');
  const status = await handle.query(statusQuery);
  expect(status.sessionRules).toEqual(['bash(touch a.txt)']);
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 'r3'), decision: 'deny' }] });
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  const results = await toolResults(handle);
  expect([results.get('r1'), results.get('r2'), results.get('r3')]).toEqual(['(no output; exit code 0)', '(no output; exit code 0)', 'User denied.']);
  expect(existsSync(path.join(workspace, 'b.txt'))).toBe(false);
  const steps = await handle.query(stepsQuery);
  expect(steps.find((s) => s.reason === 'allowed_for_run')).toMatchObject({
    detail: 'bash(touch a.txt) allowed for the rest of the run by a human',
    tools: ['bash touch a.txt'],
  });
});

test('allow_always by signal with a rule of its own; bad rules and underivable ones are refused', async () => {
  const scenario = `always-rule-${Math.random()}`;
  h.model.setScenario(scenario, [bash('s1', 'ls *'), bash('s2', 'touch c.txt'), bash('s3', 'touch d.txt'), { text: 'Finished.' }]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'files', model: scenario, workspace, stream: false });
  const s1 = await requestIdFor(handle, 's1');
  // `ls *` cannot be written as an exact rule: the human must name one.
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: s1, decision: 'allow_always' }] })).rejects.toMatchObject({
    cause: { message: expect.stringContaining(`no rule can be derived from request ${s1}`) },
  });
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 's1'), decision: 'allow', rule: 'bash(ls*)' }] })).rejects.toMatchObject({
    cause: { message: expect.stringContaining('rule: a rule goes only with the decision "allow_always"') },
  });
  await expect(handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 's1'), decision: 'allow_always', rule: 'bash(ls' }] })).rejects.toMatchObject({
    cause: { message: expect.stringContaining('rule: must be tool') },
  });
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 's1'), decision: 'allow' }] });
  await pendingRequest(handle, 's2');
  await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 's2'), decision: 'allow_always', rule: 'bash(touch*)' });
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  expect(['c.txt', 'd.txt'].map((f) => existsSync(path.join(workspace, f)))).toEqual([true, true]);
  expect((await handle.query(statusQuery)).sessionRules).toEqual(['bash(touch*)']);
});

test('the rule is carried across continue-as-new', async () => {
  const scenario = `always-can-${Math.random()}`;
  h.model.setScenario(scenario, (_body: unknown, i: number) => {
    if (i === 0) return bash('c0', 'touch kept.txt');
    if (i < 40) return { toolCalls: [{ id: `g${i}`, name: 'glob', arguments: { pattern: `*.${i}` } }] };
    if (i === 40) return bash('c40', 'touch kept.txt');
    return { text: 'Finished.' };
  });
  // Were the last call asked, nobody would answer and it would be denied after 2 s.
  const handle = await h.start({ prompt: 'long', model: scenario, workspace: h.workspace(), stream: false, approvalTimeout: '2s' });
  await pendingRequest(handle, 'c0');
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 'c0'), decision: 'allow_always' }] });
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  const runs: string[] = [];
  for await (const run of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.push(run.status.name);
  expect(runs.filter((s) => s === 'CONTINUED_AS_NEW').length).toBeGreaterThanOrEqual(1);
  expect((await toolResults(handle)).get('c40')).toBe('(no output; exit code 0)');
  const steps = await handle.query(stepsQuery);
  expect(steps.some((s) => s.reason === 'approval_timed_out')).toBe(false);
  expect((await handle.query(statusQuery)).sessionRules).toEqual(['bash(touch kept.txt)']);
}, 120_000);
