/**
 * A model call on a worker that never saw the conversation reads it from the run (its `messages`
 * query). When the run cannot answer (its worker is gone, its workflow task stuck on a dead
 * worker, the server loaded), the attempt fails within a bound as `TranscriptUnavailable`: asked
 * again by the retry policy, never counted as a provider failure, the provider never asked. Here
 * the run is real and has no worker, so its query waits; the activity runs in the SDK's activity
 * environment with a real client to the dev server.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import { createCallModel } from '../../src/activities/model/call-model';
import { TRANSCRIPT_UNAVAILABLE, TranscriptCache } from '../../src/activities/model/transcript-cache';
import type { ModelRequest } from '../../src/common/model-request';
import { Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create({ 'never-asked': [{ text: 'should not be asked' }] });
});
afterAll(() => h.close());

test('a conversation the run cannot give in time fails the attempt as TranscriptUnavailable, uncounted, without asking the provider', async () => {
  // No worker polls this harness's task queue: the run never answers a query.
  const handle = await h.start({ prompt: 'hi', model: 'never-asked', workspace: h.workspace({}) });
  const { runId } = await handle.describe();
  const env = new MockActivityEnvironment(
    { attempt: 1, heartbeatDetails: { providerFailures: 2 }, startToCloseTimeoutMs: 60_000, workflowExecution: { workflowId: handle.workflowId, runId } },
    { client: h.client, logger: new DefaultLogger('ERROR') },
  );
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  const request: ModelRequest = {
    model: 'never-asked',
    messages: [{ role: 'user', content: 'the newest message' }],
    transcript: { key: 'k', from: 2, total: 3 },
    tools: [],
    stream: false,
    step: 2,
  };
  const callModel = createCallModel({ baseURL: h.model.url, requestTimeoutMs: 10_000 }, { transcripts: new TranscriptCache(1_000) });
  const error = await env.run(callModel, request).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  expect(error).toMatchObject({ type: TRANSCRIPT_UNAVAILABLE, nonRetryable: false });
  expect((error as Error).message).toContain("could not read the run's conversation");
  // The count the attempt inherited goes on as it was: two, not three.
  expect(beats).toEqual([{ providerFailures: 2 }]);
  expect(h.model.requestsFor('never-asked')).toHaveLength(0);
  await handle.terminate('test over');
});
