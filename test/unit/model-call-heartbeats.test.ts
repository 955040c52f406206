/**
 * What a model call heartbeats, through a real HTTP provider: a first attempt sends no heartbeat
 * before the provider answers (each beat is a server write the activity's completion waits for), a
 * retried attempt carries the provider failures it inherited at once, and a provider failure is
 * counted in a heartbeat before the activity fails.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createCallModel } from '../../src/activities/model/call-model';
import type { ModelRequest } from '../../src/common/model-request';
import { ScriptedModelServer } from '../../src/testing/scripted-model-server';

let model: ScriptedModelServer;

beforeAll(async () => {
  model = await ScriptedModelServer.start({
    answers: [{ text: 'one' }, { text: 'two' }],
    down: [{ status: 503, errorMessage: 'overloaded' }],
  });
});

afterAll(() => model.close());

const request = (scenario: string): ModelRequest => ({ model: scenario, messages: [{ role: 'user', content: 'hi' }], tools: [], stream: false, step: 1 });

async function callWithBeats(scenario: string, info: ConstructorParameters<typeof MockActivityEnvironment>[0]) {
  // The failing call's warning is expected here.
  const env = new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  const callModel = createCallModel({ baseURL: model.url, requestTimeoutMs: 10_000 });
  const outcome = await env.run(callModel, request(scenario)).then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );
  return { outcome, beats };
}

test('a first attempt answers without a heartbeat; a retried one carries its inherited count at once', async () => {
  const first = await callWithBeats('answers', { attempt: 1, startToCloseTimeoutMs: 60_000 });
  expect(first.outcome).toEqual({ value: expect.objectContaining({ text: 'one' }) });
  expect(first.beats).toEqual([]);

  const retried = await callWithBeats('answers', { attempt: 3, heartbeatDetails: { providerFailures: 2 }, startToCloseTimeoutMs: 60_000 });
  expect(retried.outcome).toEqual({ value: expect.objectContaining({ text: 'two' }) });
  expect(retried.beats).toEqual([{ providerFailures: 2 }]);
});

test('a provider failure on a first attempt is counted in a heartbeat before the activity fails', async () => {
  const { outcome, beats } = await callWithBeats('down', { attempt: 1, startToCloseTimeoutMs: 60_000 });
  expect(outcome).toEqual({ error: expect.objectContaining({ message: expect.stringContaining('overloaded') }) });
  expect(beats).toEqual([{ providerFailures: 1 }]);
});
