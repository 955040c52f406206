import { Harness, openaiWireOnly } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

// How each wire writes the settings: Chat Completions' names here, Anthropic's in test/workflows/anthropic.test.ts.
openaiWireOnly('modelSettings reach every request body: temperature, max_tokens, reasoning_effort and the extra fields', async () => {
  const scenario = `settings-${Math.random()}`;
  h.model.setScenario(scenario, [{ toolCalls: [{ id: 'c1', name: 'glob', arguments: { pattern: '*' } }] }, { text: 'Done.' }]);
  await h.execute({
    prompt: 'Go',
    model: scenario,
    workspace: h.workspace(),
    modelSettings: { temperature: 0.2, maxOutputTokens: 512, reasoningEffort: 'low', extraBody: { top_k: 40, cache_prompt: true } },
  });
  const requests = h.model.requestsFor(scenario);
  expect(requests).toHaveLength(2);
  for (const request of requests) {
    expect(request.body).toMatchObject({ temperature: 0.2, max_tokens: 512, reasoning_effort: 'low', top_k: 40, cache_prompt: true, model: scenario });
  }
});

// Anthropic's API needs a max_tokens: its adapter always sends one (docs/models.md, Settings).
openaiWireOnly('without modelSettings no such field is sent', async () => {
  const scenario = `no-settings-${Math.random()}`;
  h.model.setScenario(scenario, [{ text: 'Done.' }]);
  await h.execute({ prompt: 'Go', model: scenario, workspace: h.workspace() });
  const body = h.model.requestsFor(scenario)[0]?.body;
  for (const field of ['temperature', 'max_tokens', 'reasoning_effort']) expect(body).not.toHaveProperty(field);
});

test('bad modelSettings are rejected, naming the field', async () => {
  await expect(h.execute({ prompt: 'x', modelSettings: { temperature: 5 } })).rejects.toMatchObject({
    cause: { type: 'InvalidInput', message: expect.stringContaining('modelSettings.temperature') },
  });
  await expect(h.execute({ prompt: 'x', modelSettings: { extraBody: { messages: [] } } })).rejects.toMatchObject({
    cause: { type: 'InvalidInput', message: expect.stringContaining('modelSettings.extraBody: may not set model, messages') },
  });
  await expect(h.execute({ prompt: 'x', modelSettings: { topP: 1 } })).rejects.toMatchObject({
    cause: { type: 'InvalidInput', message: expect.stringContaining('modelSettings.topP: unknown field') },
  });
});
