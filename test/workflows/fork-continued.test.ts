import type { Harness } from '../support/harness';
import { shortHistoryHarness } from '../support/short-history-server';
import { messagesQuery, statusQuery, stepsQuery } from '../../src/common/contract';

/** Forks of (and by) runs that continued as new: this file's own server suggests it after 150 events. */
const harness = shortHistoryHarness('bareagent-fork-can-');
let h: Harness;
beforeAll(() => {
  h = harness();
});

const ITERATIONS = 25;
const globs = (prefix: string) => (_body: unknown, i: number) =>
  i < ITERATIONS ? { toolCalls: [{ id: `${prefix}${i}`, name: 'glob', arguments: { pattern: `*.${prefix}${i}` } }] } : { text: `${prefix} done` };

async function runIds(workflowId: string): Promise<Array<{ runId: string; status: string }>> {
  const runs = [];
  for await (const run of h.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push({ runId: run.runId, status: run.status.name });
  return runs;
}

const toolIds = (body: { messages: Array<{ role: string; tool_call_id?: string }> }) => body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);

test('a fork of a continued-as-new origin reads its latest run, or the run asked for, and a fork that continues as new keeps its link', async () => {
  h.model.setScenario('origin', globs('o'));
  // One workspace for the origin and its forks: a run may fork only a run of its own workspace.
  const workspace = h.workspace();
  const origin = await h.start({ prompt: 'long origin', model: 'origin', workspace, permissionMode: 'auto' });
  await origin.result();
  const runs = await runIds(origin.workflowId);
  expect(runs.filter((r) => r.status === 'CONTINUED_AS_NEW').length).toBeGreaterThanOrEqual(1);
  const latest = (await origin.describe()).runId;
  const first = (await origin.describe()).raw.workflowExecutionInfo!.firstRunId!;

  // At the end of the latest run, continuing as new itself: loaded once, the link carried.
  h.model.setScenario('fork-end', globs('f'));
  const atEnd = await h.start({ prompt: 'go on', model: 'fork-end', workspace, permissionMode: 'auto', forkFrom: { workflowId: origin.workflowId } });
  expect(await atEnd.result()).toMatchObject({ text: 'f done' });
  expect((await runIds(atEnd.workflowId)).filter((r) => r.status === 'CONTINUED_AS_NEW').length).toBeGreaterThanOrEqual(1);
  const [firstRequest] = h.model.requestsFor('fork-end');
  expect(toolIds(firstRequest!.body)).toEqual(Array.from({ length: ITERATIONS }, (_, i) => `o${i}`));
  const status = await atEnd.query(statusQuery);
  const lastStep = (await origin.query(stepsQuery)).at(-1)!.step_id;
  expect(lastStep).toBeGreaterThan(ITERATIONS + 1); // next_turn steps, continue_as_new steps, the answer
  expect(status.forkedFrom).toEqual({ workflowId: origin.workflowId, runId: latest, step: lastStep });
  expect((await atEnd.describe()).searchAttributes.BareAgentForkedFrom).toEqual([origin.workflowId]);
  const messages = await atEnd.query(messagesQuery);
  expect(messages.filter((m) => m.content === 'go on')).toHaveLength(1);
  expect(messages.filter((m) => m.content === 'long origin')).toHaveLength(1);

  // Step 3, asked of the first run of the chain.
  h.model.setScenario('fork-first', [{ text: 'from step 3' }]);
  const early = await h.start({ prompt: 'other way', model: 'fork-first', workspace, forkFrom: { workflowId: origin.workflowId, runId: first, step: 3 } });
  await early.result();
  const [earlyRequest] = h.model.requestsFor('fork-first');
  expect(toolIds(earlyRequest!.body)).toEqual(['o0', 'o1', 'o2']);
  expect((await early.query(statusQuery)).forkedFrom).toEqual({ workflowId: origin.workflowId, runId: first, step: 3 });
}, 180_000);
