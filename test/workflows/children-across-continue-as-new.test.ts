import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../support/harness';
import { shortHistoryHarness } from '../support/short-history-server';
import { waitFor } from '../support/wait-for';
import { messagesQuery } from '../../src/common/contract';

/** This file's own dev server, told to suggest continue-as-new after 150 events instead of thousands. */
const harness = shortHistoryHarness('bareagent-can-jobs-');
let h: Harness;
beforeAll(() => {
  h = harness();
});

/** Turns the run takes while its job runs: enough events for continue-as-new to be suggested, well within its 200 turns. */
const TURNS_WHILE_THE_JOB_RUNS = 60;

test('a run does not continue as new while its job runs (that would cancel the job), and does once it reported', async () => {
  let afterNote = 0;
  // The job ends when the test says so, not after a time: how many turns fit in a time depends on the machine.
  const job = 'while [ ! -f go ]; do sleep 0.05; done; echo carried job done';
  h.model.setScenario('carried', (body: { messages: unknown[] }, i: number) => {
    if (i === 0) return { toolCalls: [{ id: 'job', name: 'background_run', arguments: { command: job, timeout: 120, task_id: 'carried' } }] };
    if (JSON.stringify(body.messages).includes('- Task carried: done')) afterNote += 1;
    // Enough iterations before and after the report for continue-as-new to be suggested in both.
    if (afterNote < 25 && i < 300) return { toolCalls: [{ id: `g${i}`, name: 'glob', arguments: { pattern: `*.${i}` } }] };
    return { text: 'Finished.' };
  });
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'carry a job', model: 'carried', workspace, permissionMode: 'auto' });
  await waitFor(async () => (h.model.requestsFor('carried').length >= TURNS_WHILE_THE_JOB_RUNS ? true : undefined), 'the run to take turns while its job runs', 60_000);
  writeFileSync(path.join(workspace, 'go'), '');
  const jobHandle = h.client.workflow.getHandle(`${handle.workflowId}.carried`);
  const closed = await waitFor(async () => {
    const description = await jobHandle.describe();
    return description.status.name === 'RUNNING' ? undefined : description;
  }, 'the job to close', 40_000);
  expect(closed.status.name).toBe('COMPLETED');
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });

  const continued: number[] = [];
  for await (const run of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) {
    if (run.status.name === 'CONTINUED_AS_NEW') continued.push(run.closeTime?.getTime() ?? 0);
  }
  expect(continued.length).toBeGreaterThanOrEqual(1);
  // Not before the job reported (its close may follow the report by a few milliseconds).
  expect(Math.min(...continued)).toBeGreaterThan((closed.closeTime?.getTime() ?? Infinity) - 1000);
  const messages = await handle.query(messagesQuery);
  expect(messages.find((m) => m.role === 'system')?.content).toContain('- Task carried: done - carried job done');
}, 120_000);
