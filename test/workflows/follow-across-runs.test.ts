import { followRun } from '../../src/cli/follow';
import type { RunEvent } from '../../src/common/events';
import { catchUpThrough } from '../support/events';
import type { Harness } from '../support/harness';
import { shortHistoryHarness } from '../support/short-history-server';

/**
 * A follower that falls behind while a run continues as new and then ends: its next poll finds
 * the last run closed before any poll reached it. It must end with every event, not poll for ever
 * (the stream's own client, workflow-streams 1.23.0, kept describing the run it had last polled,
 * which had continued as new, and so kept "following" it).
 */
const harness = shortHistoryHarness('bareagent-follow-');
let h: Harness;
beforeAll(() => {
  h = harness();
});

const ITERATIONS = 60;

test('a follower that stalls until the run chain has ended still ends, with every event', async () => {
  h.model.setScenario('chain', (_body: unknown, i: number) =>
    i < ITERATIONS ? { toolCalls: [{ id: `g${i}`, name: 'glob', arguments: { pattern: `*.${i}` } }] } : { text: 'Chain done.' },
  );
  const handle = await h.start({ prompt: 'a chain', model: 'chain', workspace: h.workspace(), permissionMode: 'auto', stream: false });
  const result = handle.result();
  const events: RunEvent[] = [];
  let stalled = false;
  const followed = followRun(
    h.client,
    handle.workflowId,
    async (event) => {
      events.push(event);
      if (stalled) return;
      stalled = true;
      // The first poll reached the first run; hold the follower until the whole chain is over.
      await result;
    },
    { catchUp: catchUpThrough(h.client, handle.workflowId) },
  );
  expect(await result).toMatchObject({ text: 'Chain done.', iterations: ITERATIONS + 1 });
  const runs: string[] = [];
  for await (const run of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.push(run.status.name);
  expect(runs).toContain('CONTINUED_AS_NEW');

  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([followed.then(() => 'ended'), new Promise((r) => (timer = setTimeout(() => r('still polling after 20 s'), 20_000)))]);
  clearTimeout(timer);
  expect(ended).toBe('ended');
  expect(events.filter((e) => e.type === 'model_call')).toHaveLength(ITERATIONS + 1);
  expect(events.at(-1)).toMatchObject({ type: 'final' });
}, 120_000);
