import { WorkflowFailedError } from '@temporalio/client';
import { type ApplicationFailure } from '@temporalio/common';
import { Harness, TEST_WIRE } from '../support/harness';
import { stepsQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker({ requestTimeoutMs: 1500 });
});
afterAll(() => h.close());

/** The class each provider's SDK gives a 503: a failure's type names it. */
const UNAVAILABLE = TEST_WIRE === 'anthropic' ? 'ServiceUnavailableError' : 'InternalServerError';

/** A model that never stops, with a different call each time (the same call repeated would be a loop). */
const alwaysAToolCall = (_body: unknown, index: number) => ({ text: '', toolCalls: [{ name: 'glob', arguments: { pattern: `*.md${index}` } }] });

async function failureOf(input: Record<string, unknown>): Promise<ApplicationFailure> {
  const error = await (await h.start({ workspace: h.workspace(), ...input })).result().catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause as ApplicationFailure;
}

test('a small maxIterations stops a model that never stops calling tools', async () => {
  h.model.setScenario('loop-3', alwaysAToolCall);
  const failure = await failureOf({ prompt: 'go', model: 'loop-3', maxIterations: 3 });
  expect(failure.type).toBe('LLMCallError');
  expect(failure.message).toBe('Agent loop exceeded 3 iterations');
  expect(failure.nonRetryable).toBe(true);
  expect(h.model.requestsFor('loop-3')).toHaveLength(3);
});

test('the default limit is 200 iterations', async () => {
  h.model.setScenario('loop-default', alwaysAToolCall);
  const failure = await failureOf({ prompt: 'go', model: 'loop-default', stream: false });
  expect(failure.message).toBe('Agent loop exceeded 200 iterations');
  expect(h.model.requestsFor('loop-default')).toHaveLength(200);
});

test('a provider failure after the retries fails the run with LLMCallError', async () => {
  h.model.setScenario('down', () => ({ status: 503, errorMessage: 'upstream is down' }));
  const failure = await failureOf({ prompt: 'hi', model: 'down', stream: false });
  expect(failure.type).toBe('LLMCallError');
  expect(failure.message).toBe(`LLM call failed: ${UNAVAILABLE}: 503 upstream is down`);
  expect(h.model.requestsFor('down')).toHaveLength(4);
  // Like every other stop: a last step record, and the details that name it.
  expect(failure.details?.[0]).toMatchObject({ reason: 'provider_error', detail: `${UNAVAILABLE}: 503 upstream is down`, stepId: 1 });
  expect((failure.details?.[0] as { budget: { used: { iterations: number } } }).budget.used.iterations).toBe(1);
});

test("the provider failure is the run's last step record", async () => {
  h.model.setScenario('down-steps', () => ({ status: 503, errorMessage: 'still down' }));
  const handle = await h.start({ prompt: 'hi', model: 'down-steps', stream: false, workspace: h.workspace() });
  await handle.result().catch(() => undefined);
  const steps = await handle.query(stepsQuery);
  expect(steps.at(-1)).toMatchObject({ step_id: 1, reason: 'stop:provider_error', detail: `${UNAVAILABLE}: 503 still down` });
});

test('a 4xx other than 408/409/429 is not retried', async () => {
  h.model.setScenario('bad-request', () => ({ status: 400, errorMessage: 'context too long' }));
  const failure = await failureOf({ prompt: 'hi', model: 'bad-request', stream: false });
  expect(failure.message).toBe('LLM call failed: BadRequestError: 400 context too long');
  expect(h.model.requestsFor('bad-request')).toHaveLength(1);
});

test('a 429 with retry-after is retried after the delay it asks for, and the run succeeds', async () => {
  h.model.setScenario('rate-limited', [
    { status: 429, errorMessage: 'slow down', headers: { 'retry-after': '2' } },
    { text: 'Recovered.' },
  ]);
  const handle = await h.start({ prompt: 'hi', model: 'rate-limited', stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Recovered.' });
  const [first, second] = h.model.requestsFor('rate-limited');
  expect(first && second).toBeTruthy();
  const gap = Number(second?.receivedAt) - Number(first?.receivedAt);
  expect(gap).toBeGreaterThanOrEqual(1900); // the policy's own first interval is 500 ms
});

test('a hung connection times out and is retried', async () => {
  h.model.setScenario('hung', [{ hang: true }, { text: 'Answered the second time.' }]);
  const result = await (await h.start({ prompt: 'hi', model: 'hung', stream: false })).result();
  expect(result).toMatchObject({ text: 'Answered the second time.' });
});

test('an empty reply is not an answer: the model is nudged once, and nothing empty goes on the wire', async () => {
  h.model.setScenario('empty-then-answer', [{ text: '' }, { text: 'The real answer.' }]);
  const handle = await h.start({ prompt: 'hi', model: 'empty-then-answer', workspace: h.workspace() });
  expect(await handle.result()).toMatchObject({ text: 'The real answer.', stopReason: 'final_answer', iterations: 2 });
  const second = h.model.requestsFor('empty-then-answer')[1]?.body as { messages: Array<{ role: string; content: unknown; tool_calls?: unknown }> };
  expect(second.messages.filter((m) => m.role === 'assistant')).toEqual([]);
  expect(second.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/^Your last reply was empty/) });
  expect((await handle.query(stepsQuery))[0]).toMatchObject({ reason: 'empty_reply' });
});

test('a second empty reply in a row fails the run with a clear error', async () => {
  h.model.setScenario('always-empty', () => ({ text: '' }));
  const failure = await failureOf({ prompt: 'hi', model: 'always-empty' });
  expect(failure.type).toBe('LLMCallError');
  expect(failure.message).toBe('LLM call failed: EmptyReply: the model replied with no text and no tool call twice in a row');
  expect(failure.details?.[0]).toMatchObject({ reason: 'empty_reply', stepId: 2 });
  expect(h.model.requestsFor('always-empty')).toHaveLength(2);
});
