import type { Harness } from '../support/harness';
import { shortHistoryHarness } from '../support/short-history-server';
import { collectEvents } from '../support/events';
import { messagesQuery, statusQuery, stepsQuery, userMessageSignal } from '../../src/common/contract';

/** This file's own dev server, told to suggest continue-as-new after 150 events instead of thousands. */
const harness = shortHistoryHarness('bareagent-can-');
let h: Harness;
beforeAll(() => {
  h = harness();
});

const ITERATIONS = Number(process.env.CAN_ITERATIONS ?? 130);

test('a run of well over 100 iterations continues as new several times and its state comes through intact', async () => {
  h.model.setScenario('long', (_body: unknown, i: number) => {
    if (i === 0) return { toolCalls: [{ id: 'job', name: 'background_run', arguments: { command: 'sleep 1; echo slow job done', task_id: 'slow' } }] };
    if (i === 1) return { toolCalls: [{ id: 'sh', name: 'bash', arguments: { command: 'echo confined' } }] };
    if (i < ITERATIONS) return { toolCalls: [{ id: `g${i}`, name: 'glob', arguments: { pattern: `*.${i}` } }] };
    return { text: 'Finished the long run.' };
  });
  const handle = await h.start({ prompt: 'a long task', model: 'long', workspace: h.workspace(), permissionMode: 'auto', budgets: { maxTokens: 10_000_000 } });
  const events = collectEvents(h.client, handle.workflowId);
  await new Promise((r) => setTimeout(r, 1500));
  await handle.signal(userMessageSignal, { text: 'a follow-up that crosses runs' });
  const result = await handle.result();
  expect(result).toMatchObject({ text: 'Finished the long run.', iterations: ITERATIONS + 1 });

  const runs: string[] = [];
  for await (const run of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.push(run.status.name);
  expect(runs.filter((s) => s === 'CONTINUED_AS_NEW').length).toBeGreaterThanOrEqual(3);

  // The follower ends (its catch-up query answered) before the queries below: no two queries at once
  // on the closed run (see parallel-read-only-calls.test.ts).
  const seen = await events;
  const messages = await handle.query(messagesQuery);
  expect(messages[0]).toEqual({ role: 'user', content: 'a long task' });
  // The default system prompt's environment was read by the first run and carried to the later ones.
  const sent = h.model.requestsFor('long').map((r) => r.body.messages.find((m: { role: string }) => m.role === 'system')?.content);
  expect(sent[0]).toMatch(/^You are BareAgent/);
  expect(new Set(sent).size).toBe(1);
  expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(ITERATIONS + 1);
  expect(messages.some((m) => m.content === 'a follow-up that crosses runs')).toBe(true);
  // The job started in the first run reported to a later one.
  expect(messages.find((m) => m.role === 'system')?.content).toContain('- Task slow: done - slow job done');
  const steps = await handle.query(stepsQuery);
  expect(steps.filter((s) => s.reason === 'continue_as_new').length).toBeGreaterThanOrEqual(3);
  expect(steps.map((s) => s.step_id)).toEqual(steps.map((_, i) => i + 1));
  const status = await handle.query(statusQuery);
  expect(status.usage.inputTokens).toBe(result.usage.inputTokens);
  // How the first run's one command was confined is still known runs later.
  expect(status.sandbox.enforcement).toBe('bubblewrap');
  // A follower from offset 0 saw the whole conversation across the runs.
  expect(seen.filter((e) => e.type === 'model_call')).toHaveLength(ITERATIONS + 1);
}, 240_000);
