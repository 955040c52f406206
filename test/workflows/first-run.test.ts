import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create({
    hello: [{ text: 'Hello from the scripted model.' }],
    empty: [],
  });
  await h.startWorker();
});
afterAll(() => h.close());

test('agentRun returns the scripted model text and sends the prompt over real HTTP', async () => {
  const result = await h.execute({ prompt: 'Say hello', model: 'hello', systemPrompt: 'Be brief.' });
  expect(result.text).toBe('Hello from the scripted model.');
  expect(result.stopReason).toBe('final_answer');
  expect(result.iterations).toBe(1);
  expect(result.usage.outputTokens).toBeGreaterThan(0);
  const [request] = h.model.requestsFor('hello');
  expect(request?.body.model).toBe('hello');
  expect(request?.body.messages).toEqual([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello' },
  ]);
  expect(request?.headers.authorization).toBe('Bearer sk-test-secret-never-in-history');
});

async function failureOf(input: Record<string, unknown>): Promise<ApplicationFailure> {
  const handle = await h.start(input);
  const error = await handle.result().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

test.each([
  [{ prompt: '' }, 'prompt: must be a non-empty string'],
  [{}, 'prompt:'],
  [{ prompt: 'x', maxIterations: 'ten' }, 'maxIterations:'],
  [{ prompt: 'x', colour: 'blue' }, 'colour: unknown field'],
  [{ prompt: 'x', permissionMode: 'yolo' }, 'permissionMode:'],
])('invalid input %j fails at once with InvalidInput naming the field', async (input, fragment) => {
  const started = Date.now();
  const failure = await failureOf(input);
  expect(failure.type).toBe('InvalidInput');
  expect(failure.nonRetryable).toBe(true);
  expect(failure.message).toContain(fragment);
  expect(Date.now() - started).toBeLessThan(10_000);
});

test('a script that runs out makes the scripted server fail loudly, naming the scenario', async () => {
  const failure = await failureOf({ prompt: 'anything', model: 'empty', stream: false });
  expect(failure.type).toBe('LLMCallError');
  expect(failure.message).toMatch(/^LLM call failed: InternalServerError: 500 scripted model server: scenario "empty" ran out of responses/);
  // 500 is retryable: the activity tried 4 times before giving up.
  expect(h.model.requestsFor('empty')).toHaveLength(4);
});
