import { WorkflowFailedError } from '@temporalio/client';
import { Harness, openaiWireOnly } from '../support/harness';
import { statusQuery, stepsQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const glob = (i: number) => ({ toolCalls: [{ id: `g${i}`, name: 'glob', arguments: { pattern: `*.${i}` } }], noUsage: true });

// A server that reports no usage speaks Chat Completions (llama.cpp's stream): Anthropic's API always reports it.
for (const stream of [true, false]) {
  openaiWireOnly(`a provider that reports no usage (stream ${stream}) gets an estimate, marked on the steps, and a token budget still trips`, async () => {
    const scenario = `no-usage-${stream}-${Math.random()}`;
    h.model.setScenario(scenario, (_body: unknown, i: number) => glob(i));
    const handle = await h.start({ prompt: `${'Look around the workspace. '.repeat(40)}`, model: scenario, workspace: h.workspace(), stream, budgets: { maxTokens: 6000 } });
    const failure = await handle.result().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'BudgetExceeded' });
    const steps = await handle.query(stepsQuery);
    const turns = steps.filter((s) => s.reason === 'next_turn');
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.every((s) => s.usage_estimated === true)).toBe(true);
    const status = await handle.query(statusQuery);
    expect(status.usageEstimated).toBe(true);
    expect(status.usage.inputTokens).toBeGreaterThan(200);
    expect(status.usage.outputTokens).toBeGreaterThan(0);
  });
}

test('a provider that reports usage is counted as reported, with no estimate mark', async () => {
  const scenario = `usage-${Math.random()}`;
  h.model.setScenario(scenario, [{ text: 'Done.', usage: { prompt_tokens: 42, completion_tokens: 7 } }]);
  const handle = await h.start({ prompt: 'x', model: scenario, workspace: h.workspace() });
  expect(await handle.result()).toMatchObject({ usage: { inputTokens: 42, outputTokens: 7 } });
  expect((await handle.query(stepsQuery)).some((s) => s.usage_estimated)).toBe(false);
  expect((await handle.query(statusQuery)).usageEstimated).toBeUndefined();
});
