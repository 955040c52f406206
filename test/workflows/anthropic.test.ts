import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { messagesQuery, stepsQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';

/** Runs that name `provider: "anthropic"`: the same scripts over the Messages API (src/testing/scripted-anthropic.ts). */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const anthropic = { provider: 'anthropic' as const };

test.each([true, false])('tool use and results over the Messages API, its thinking blocks sent back verbatim with their signatures (stream %s)', async (stream) => {
  const scenario = `claude-thinking-${stream}`;
  h.model.setScenario(scenario, [
    { reasoning: 'Read a.txt first.', toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { reasoning: 'It says hello.', text: 'It says hello.' },
  ]);
  const handle = await h.start({ ...anthropic, prompt: 'What does a.txt say?', model: scenario, workspace: h.workspace({ 'a.txt': 'hello\n' }), stream });
  expect(await handle.result()).toMatchObject({ text: 'It says hello.' });
  const [first, second] = h.model.requestsFor(scenario);
  expect(first?.wire).toBe('anthropic');
  // The server refuses a thinking block that comes back altered: the second call passing is the proof.
  const assistant = second?.raw.messages.find((m: { role: string }) => m.role === 'assistant');
  expect(assistant.content[0]).toMatchObject({ type: 'thinking', thinking: 'Read a.txt first.', signature: expect.stringMatching(/^sig-/) });
  expect(assistant.content[1]).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { file_path: 'a.txt' } });
  const result = second?.raw.messages.at(-1).content[0];
  expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: false });
  const messages = await handle.query(messagesQuery);
  expect(messages[1]?.reasoning).toMatchObject({ text: 'Read a.txt first.', provider: 'anthropic' });
});

test('the stable prefix is marked for the prompt cache, later turns read it, and cache reads are priced at the cache rate', async () => {
  const scenario = 'claude-sonnet-4-5-cache';
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'toolu_1', name: 'glob', arguments: { pattern: '*.txt' } }] },
    { toolCalls: [{ id: 'toolu_2', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { text: 'Done.' },
  ]);
  const handle = await h.start({ ...anthropic, prompt: 'Look around.', model: scenario, workspace: h.workspace({ 'a.txt': 'hello\n' }) });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  const requests = h.model.requestsFor(scenario);
  const raw = requests[1]?.raw;
  expect(raw.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
  expect(raw.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
  expect(raw.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
  const caches = requests.map((r) => r.cache!);
  expect(caches[0]).toMatchObject({ cache_read_input_tokens: 0 });
  for (const later of caches.slice(1)) {
    expect(later.cache_read_input_tokens).toBeGreaterThan(0);
    expect(later.input_tokens).toBe(0);
  }
  // The run's cost: uncached input at $3, reads at $0.30, writes at $3.75, output at $15 per million.
  const steps = await handle.query(stepsQuery);
  const cost = steps.at(-1)!.budget_after.used.costUsd;
  const read = caches.reduce((sum, c) => sum + c.cache_read_input_tokens, 0);
  const written = caches.reduce((sum, c) => sum + c.cache_creation_input_tokens, 0);
  const uncached = caches.reduce((sum, c) => sum + c.input_tokens, 0);
  const output = steps.at(-1)!.budget_after.used.outputTokens;
  expect(cost).toBeCloseTo((uncached * 3 + read * 0.3 + written * 3.75 + output * 15) / 1_000_000, 10);
  expect(steps.at(-1)!.budget_after.used.inputTokens).toBe(uncached + read + written);
});

test('overloaded (529) and rate limits are retried after their retry-after, then the run succeeds', async () => {
  h.model.setScenario('claude-overloaded', [
    { status: 529, errorMessage: 'Overloaded', headers: { 'retry-after': '1' } },
    { status: 429, errorMessage: 'slow down', headers: { 'retry-after': '1' } },
    { text: 'Finally.' },
  ]);
  const handle = await h.start({ ...anthropic, prompt: 'hi', model: 'claude-overloaded', workspace: h.workspace() });
  expect(await handle.result()).toMatchObject({ text: 'Finally.' });
  const at = h.model.requestsFor('claude-overloaded').map((r) => r.receivedAt);
  expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(900);
  expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(900);
});

test('a prompt over the context window fails the run at once with the API\'s own message', async () => {
  h.model.setScenario('claude-refused', () => ({ status: 400, errorMessage: 'prompt is too long: 250000 tokens > 200000 maximum' }));
  const error = await (await h.start({ ...anthropic, prompt: 'hi', model: 'claude-refused', workspace: h.workspace(), stream: false })).result().catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(((error as WorkflowFailedError).cause as ApplicationFailure).message).toContain('BadRequestError: 400 prompt is too long');
  expect(h.model.requestsFor('claude-refused')).toHaveLength(1);
});

test('the acceptance of a run is the same whichever adapter served it', async () => {
  const script = [
    { toolCalls: [{ id: 'toolu_w', name: 'write_file', arguments: { file_path: 'out.txt', content: 'ok\n' } }] },
    { text: 'Wrote it.' },
  ];
  const outcomes = [];
  for (const provider of ['openai', 'anthropic'] as const) {
    h.model.setScenario(`accept-${provider}`, script);
    const handle = await h.start({ provider, prompt: 'Write out.txt', model: `accept-${provider}`, workspace: h.workspace(), permissionMode: 'bypass', acceptance: { command: 'grep -q ok out.txt' } });
    const result = await handle.result();
    const steps = await handle.query(stepsQuery);
    outcomes.push({ text: result.text, iterations: result.iterations, reasons: steps.map((s) => s.reason) });
  }
  expect(outcomes[1]).toEqual(outcomes[0]);
  expect(h.model.requestsFor('accept-anthropic').every((r) => r.wire === 'anthropic')).toBe(true);
});

test('a 30-turn run over the Messages API: after turn 1 almost no input is billed at the uncached rate (BENCHMARKS.md)', async () => {
  const scenario = 'claude-sonnet-4-5-30-turns';
  h.model.setScenario(scenario, (_body: unknown, index: number) =>
    index < 29 ? { text: `Turn ${index + 1}.`, toolCalls: [{ id: `toolu_${index}`, name: 'grep', arguments: { pattern: `TODO-${index}` } }] } : { text: 'Done after 30 turns.' },
  );
  const handle = await h.start({ ...anthropic, prompt: 'Look for every TODO.', model: scenario, workspace: h.workspace({ 'a.txt': 'TODO-3\n' }) });
  expect(await handle.result()).toMatchObject({ text: 'Done after 30 turns.', iterations: 30 });
  const later = h.model.requestsFor(scenario).slice(1).map((r) => r.cache!);
  const sum = (pick: (c: (typeof later)[number]) => number) => later.reduce((total, c) => total + pick(c), 0);
  const input = sum((c) => c.input_tokens + c.cache_read_input_tokens + c.cache_creation_input_tokens);
  const share = { uncached: sum((c) => c.input_tokens) / input, read: sum((c) => c.cache_read_input_tokens) / input, written: sum((c) => c.cache_creation_input_tokens) / input };
  const steps = await handle.query(stepsQuery);
  const used = steps.at(-1)!.budget_after.used;
  const uncachedCost = (used.inputTokens * 3 + used.outputTokens * 15) / 1_000_000;
  console.log(`30 turns, turns 2-30: ${input} input tokens; uncached ${(share.uncached * 100).toFixed(1)}%, cache reads ${(share.read * 100).toFixed(1)}%, cache writes ${(share.written * 100).toFixed(1)}%; run cost $${used.costUsd.toFixed(4)} against $${uncachedCost.toFixed(4)} without the cache`);
  expect(share.uncached).toBeLessThanOrEqual(0.1);
});

test("a run's model settings in the Messages API's words: max_tokens, temperature without thinking, a thinking budget with it, and extraBody", async () => {
  h.model.setScenario('claude-settings', () => ({ text: 'Done.' }));
  const plain = await h.start({ ...anthropic, prompt: 'hi', model: 'claude-settings', modelSettings: { temperature: 0.3, maxOutputTokens: 900, extraBody: { top_k: 5 } } });
  await plain.result();
  const thinking = await h.start({ ...anthropic, prompt: 'think', model: 'claude-settings', modelSettings: { temperature: 0.3, maxOutputTokens: 4000, reasoningEffort: 'low' } });
  await thinking.result();
  const [first, second] = h.model.requestsFor('claude-settings').map((r) => r.raw);
  expect(first).toMatchObject({ max_tokens: 900, temperature: 0.3, top_k: 5 });
  expect(first.thinking).toBeUndefined();
  // The API refuses a temperature beside thinking: the budget is taken, the temperature left out.
  expect(second).toMatchObject({ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2048 } });
  expect(second.temperature).toBeUndefined();
});
