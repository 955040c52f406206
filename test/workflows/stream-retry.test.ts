import { Harness } from '../support/harness';
import { collectEvents, streamedText } from '../support/events';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(() => h.close());

test('a worker lost mid-stream: the retried attempt publishes a marker, and the text is not shown twice', async () => {
  h.model.setScenario('slow-stream', (_body: unknown, index: number) =>
    index === 0
      ? { chunks: ['Half ', 'of an ', 'answer ', 'that ', 'never ', 'ends'], chunkDelayMs: 1500 }
      : { chunks: ['The whole ', 'answer.'] },
  );
  const first = await WorkerProcess.start(h);
  const handle = await h.start({ prompt: 'stream', model: 'slow-stream', workspace: h.workspace() });
  const events = collectEvents(h.client, handle.workflowId);
  await waitFor(async () => (h.model.requestsFor('slow-stream').length === 1 ? true : undefined), 'the first model request');
  await new Promise((r) => setTimeout(r, 2500)); // a chunk or two reached the stream
  await first.kill();
  const second = await WorkerProcess.start(h);
  let seen;
  try {
    expect(await handle.result()).toMatchObject({ text: 'The whole answer.' });
    seen = await events; // its catch-up query needs a worker
  } finally {
    await second.kill();
  }
  const restart = seen.findIndex((e) => e.type === 'attempt_restart');
  expect(restart).toBeGreaterThan(0);
  expect(seen.slice(0, restart).some((e) => e.type === 'text' && e.attempt === 1)).toBe(true);
  expect(seen[restart]).toEqual({ type: 'attempt_restart', step: 1, attempt: 2 });
  expect(streamedText(seen)).toBe('The whole answer.');
}, 90_000);
