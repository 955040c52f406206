import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { statusQuery, stepsQuery } from '../../src/common/contract';
import { startLocalModelServer, type LocalModelServer } from '../../src/testing/local-model';
import { Harness } from '../support/harness';

/**
 * Real runs against a real llama.cpp server (llama-cpp-python) and Gemma 3 270M. So small a
 * model is no agent: what these tests hold to is what the runtime owes any such server, that
 * a run ends cleanly, its tokens are counted (estimated where the server reports none), and a
 * token budget trips.
 */
let server: LocalModelServer;
let h: Harness;
const timings: string[] = [];

beforeAll(async () => {
  const started = Date.now();
  server = await startLocalModelServer({ log: (line) => console.error(`[local model] ${line}`) });
  timings.push(`server ready in ${Date.now() - started} ms`);
  h = await Harness.create();
  await h.startWorker({ modelBaseURL: server.baseURL, requestTimeoutMs: 10 * 60_000 });
}, 40 * 60_000);

afterAll(async () => {
  await h?.close();
  await server?.stop();
  process.stderr.write(`[local model] ${timings.join('; ')}\n`);
});

const input = (stream: boolean, extra: Record<string, unknown> = {}) => ({
  prompt: 'Say hello in one short sentence. Do not use any tool.',
  model: server.model,
  workspace: h.workspace(),
  stream,
  maxIterations: 3,
  permissionMode: 'plan' as const,
  modelSettings: { maxOutputTokens: 64, temperature: 0 },
  ...extra,
});

/** The run's end: its result, or the failure of a stop the loop recorded as `stop:<reason>`. */
async function runToEnd(stream: boolean, extra: Record<string, unknown> = {}) {
  const started = Date.now();
  const handle = await h.start(input(stream, extra));
  const outcome = await handle.result().then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const steps = await handle.query(stepsQuery);
  const status = await handle.query(statusQuery);
  timings.push(`stream ${stream}${extra.budgets ? ' (budget)' : ''}: ${Date.now() - started} ms, ${steps.length} steps, ${status.usage.inputTokens} in / ${status.usage.outputTokens} out`);
  return { outcome, steps, status };
}

test.each([true, false])('a run (stream %s) ends cleanly, with its tokens counted', async (stream) => {
  const { outcome, steps, status } = await runToEnd(stream);
  if (!outcome.ok) {
    expect(outcome.error).toBeInstanceOf(WorkflowFailedError);
    expect(steps.at(-1)?.reason).toMatch(/^stop:/);
  } else {
    expect(steps.at(-1)?.reason).toBe('stop:final_answer');
  }
  expect(status.usage.inputTokens).toBeGreaterThan(0);
  expect(status.usage.outputTokens).toBeGreaterThan(0);
  // The steps that called the model; `max_tokens` reached the server: no reply is longer
  // (reported counts are exact, estimates a little off).
  const turns = steps.filter((s) => s.budget_after.used.iterations > s.budget_before.used.iterations);
  expect(turns.length).toBeGreaterThan(0);
  for (const turn of turns) {
    expect(turn.budget_after.used.outputTokens - turn.budget_before.used.outputTokens).toBeLessThanOrEqual(stream ? 96 : 64);
  }
  if (stream) {
    // llama-cpp-python's streams carry no usage (it ignores stream_options): the runtime estimates.
    expect(turns.every((s) => s.usage_estimated === true)).toBe(true);
    expect(status.usageEstimated).toBe(true);
  } else {
    // Its non-streamed answers report usage: counted as reported, with no estimate mark.
    expect(steps.some((s) => s.usage_estimated)).toBe(false);
    expect(status.usageEstimated).toBeUndefined();
  }
});

test('a token budget trips with BudgetExceeded', async () => {
  const { outcome, steps } = await runToEnd(true, { budgets: { maxTokens: 200 }, maxIterations: 10 });
  expect(outcome.ok).toBe(false);
  const failure = (outcome as { error: WorkflowFailedError }).error.cause as ApplicationFailure;
  expect(failure).toMatchObject({ type: 'BudgetExceeded' });
  expect(steps.at(-1)?.reason).toBe('stop:budget_tokens');
});
