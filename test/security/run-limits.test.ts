import { readdirSync } from 'node:fs';
import { messagesQuery } from '../../src/common/contract';
import type { ToolResultBlock } from '../../src/common/messages';
import { Harness } from '../support/harness';

/** Per-run limits, judged by effect: what started (child workflows, files the jobs wrote) and what the model read. */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

async function results(handle: Awaited<ReturnType<Harness['start']>>): Promise<ToolResultBlock[]> {
  return (await handle.query(messagesQuery)).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result') as ToolResultBlock[];
}

async function childrenStarted(handle: Awaited<ReturnType<Harness['start']>>): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length;
}

test('a fifth background job at once gets an error result and nothing starts: four jobs ran', async () => {
  const scenario = `limits-${Math.random()}`;
  const calls = [1, 2, 3, 4, 5].map((n) => ({ id: `bg${n}`, name: 'background_run', arguments: { command: `sleep 2; touch job-${n}` } }));
  // Each job that finishes on its own wakes the run with a notification, and each answer is a proposal the jobs may hold: enough answers for every order.
  h.model.setScenario(scenario, [{ toolCalls: calls }, { text: 'Waiting.' }, ...Array.from({ length: 10 }, () => ({ text: 'Done.' }))]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'Start jobs', model: scenario, workspace, stream: false, permissionMode: 'bypass' });
  await handle.result();
  const got = await results(handle);
  const byId = new Map(got.map((r) => [r.tool_use_id, r]));
  for (const n of [1, 2, 3, 4]) expect(byId.get(`bg${n}`)).toMatchObject({ is_error: false, content: expect.stringContaining('Submitted background task') });
  expect(byId.get('bg5')).toMatchObject({ is_error: true, content: expect.stringMatching(/Refused: 4 background jobs are already running.*concurrency\.backgroundJobs/) });
  expect(await childrenStarted(handle)).toBe(4);
  expect(readdirSync(workspace).sort()).toEqual(['job-1', 'job-2', 'job-3', 'job-4']);
}, 90_000);

test('the limit is the run\'s input: concurrency.backgroundJobs 1 refuses the second; background subagents are bounded the same way', async () => {
  const scenario = `limits-one-${Math.random()}`;
  h.model.setScenario(scenario, [
    {
      toolCalls: [
        { id: 'j1', name: 'background_run', arguments: { command: 'sleep 2' } },
        { id: 'j2', name: 'background_run', arguments: { command: 'sleep 2' } },
        { id: 's1', name: 'subagent', arguments: { task: 'look around', agent_type: 'explore', run_in_background: true } },
        { id: 's2', name: 'subagent', arguments: { task: 'look again', agent_type: 'explore', run_in_background: true } },
      ],
    },
    { text: 'Sub done.' },
    { text: 'Sub done.' },
    { text: 'Done.' },
    { text: 'Done.' },
    { text: 'Done.' },
  ]);
  const handle = await h.start({ prompt: 'Start', model: scenario, workspace: h.workspace(), stream: false, permissionMode: 'bypass', concurrency: { backgroundJobs: 1, subagents: 1 } });
  await handle.result();
  const byId = new Map((await results(handle)).map((r) => [r.tool_use_id, r]));
  expect(byId.get('j1')?.is_error).toBe(false);
  expect(byId.get('j2')).toMatchObject({ is_error: true, content: expect.stringContaining('Refused: 1 background jobs are already running') });
  expect(byId.get('s1')?.is_error).toBe(false);
  expect(byId.get('s2')).toMatchObject({ is_error: true, content: expect.stringContaining('Refused: 1 subagents are already running') });
  expect(await childrenStarted(handle)).toBe(2);
}, 90_000);
