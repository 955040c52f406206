import { isMarkedRunning } from '../support/process-state';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { type ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { StepRecord } from '../../src/common/wire';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { messagesQuery, stepsQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

async function failedRun(scenario: string, script: Parameters<Harness['model']['setScenario']>[1], input: Record<string, unknown>) {
  h.model.setScenario(scenario, script);
  const handle = await h.start({ prompt: 'work', model: scenario, workspace: h.workspace(), permissionMode: 'auto', stream: false, ...input });
  const error = await handle.result().catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const failure = (error as WorkflowFailedError).cause as ApplicationFailure;
  const steps = await handle.query(stepsQuery);
  return { handle, failure, steps, details: failure.details?.[0] as { reason: string; budget: StepRecord['budget_after']; stepId: number } };
}

const distinctCalls = (_body: unknown, i: number) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `*.${i}` } }] });

test('a token budget is a ceiling: each call runs capped at what is left, then the run stops with BudgetExceeded, its details and a last step record', async () => {
  const { failure, details, steps } = await failedRun(
    'tokens',
    () => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `*.${Math.random()}` } }], usage: { prompt_tokens: 400, completion_tokens: 100 } }),
    { budgets: { maxTokens: 3000 } },
  );
  expect(failure).toMatchObject({ type: 'BudgetExceeded', nonRetryable: true });
  const used = Number(/^tokens budget spent: used (\d+) of 3000$/.exec(failure.message)?.[1]);
  // What the provider billed: 400 in, and out at most the max_tokens each call was given.
  const billed = h.model.requestsFor('tokens').reduce((n, r) => n + 400 + Math.min(100, r.body.max_tokens), 0);
  expect(used).toBe(billed);
  expect(used).toBeLessThanOrEqual(3000);
  expect(used).toBeGreaterThan(2500); // the last call got the little that was left as its max_tokens
  expect(details).toMatchObject({ reason: 'budget_tokens', budget: { used: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) } } });
  expect(details.budget.used.inputTokens + details.budget.used.outputTokens).toBe(used);
  expect(steps.at(-1)).toMatchObject({ reason: 'stop:budget_tokens', step_id: details.stepId });
  expect(steps.at(-1)?.detail).toMatch(/too little left for a call of about \d+ prompt tokens/);
  expect(steps[0]?.budget_before.tokens).toBe(3000);
  expect(steps[0]?.budget_after.tokens).toBe(2500);
});

test('a cost budget, priced from the configurable table', async () => {
  const { failure, details } = await failedRun('priced', distinctCalls, {
    budgets: { maxCostUsd: 0.01 },
    prices: { priced: { inputPerMTok: 1000, outputPerMTok: 1000 } },
  });
  expect(failure.type).toBe('BudgetExceeded');
  expect(failure.message).toMatch(/^cost budget spent: used \$0\.\d+ of \$0\.0100$/);
  expect(details.reason).toBe('budget_cost');
});

test('a wall-clock budget, on the workflow clock', async () => {
  const { failure, details } = await failedRun(
    'slow',
    (_b: unknown, i: number) => ({ toolCalls: [{ name: 'bash', arguments: { command: `sleep 1 # ${i}` } }] }),
    { budgets: { maxWallClock: '2s' } },
  );
  expect(failure.type).toBe('BudgetExceeded');
  expect(failure.message).toMatch(/^wall-clock budget spent/);
  expect(details.reason).toBe('budget_wall_clock');
});

test('the same action 5 times with no new evidence stops with NO_PROGRESS, warned at the third, trajectory kept', async () => {
  const { handle, failure, details } = await failedRun('stuck', () => ({ toolCalls: [{ name: 'grep', arguments: { pattern: 'needle' } }] }), {});
  expect(failure).toMatchObject({ type: 'NoProgress', message: 'No progress: grep repeated 5 times with the same result' });
  expect(details.reason).toBe('NO_PROGRESS');
  const messages = await handle.query(messagesQuery);
  expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(5);
  const warnings = messages.filter((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'text' && b.text === 'Repeated action detected; diagnose before retrying'));
  expect(warnings).toHaveLength(2); // after the 3rd and the 4th repeat
  expect(messages.at(-1)?.role).toBe('user'); // the fifth result is kept
});

test('the same grep on a changed file is progress, not a loop', async () => {
  h.model.setScenario('changing', (_b: unknown, i: number) =>
    i >= 12
      ? { text: 'The file kept changing.' }
      : i % 2 === 0
        ? { toolCalls: [{ name: 'grep', arguments: { pattern: 'line' } }] }
        : { toolCalls: [{ name: 'bash', arguments: { command: `echo line ${i} >> log.txt` } }] },
  );
  const handle = await h.start({ prompt: 'watch', model: 'changing', workspace: h.workspace({ 'log.txt': 'line 0\n' }), permissionMode: 'auto' });
  expect(await handle.result()).toMatchObject({ text: 'The file kept changing.' });
});

test('a model that guesses three missing files and then finds the right one completes', async () => {
  h.model.setScenario('guessing', [
    ...['notes.md', 'NOTES.txt', 'docs/notes.txt'].map((file) => ({ toolCalls: [{ name: 'read_file', arguments: { file_path: file } }] })),
    { toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.txt' } }] },
    { text: 'Found it.' },
  ]);
  const handle = await h.start({ prompt: 'read the notes', model: 'guessing', workspace: h.workspace({ 'notes.txt': 'hi\n' }), stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Found it.' });
});

test('the same call failing the same way is warned at the third time and stopped at the fifth', async () => {
  const { failure, details, steps } = await failedRun(
    'failing',
    () => ({ toolCalls: [{ name: 'read_file', arguments: { file_path: 'missing.txt' } }] }),
    {},
  );
  expect(failure.type).toBe('RepeatedFailure');
  expect(failure.message).toBe('Repeated failure: the same read_file call failed 5 times with FileNotFoundError');
  expect(details.reason).toBe('REPEATED_FAILURE');
  expect(h.model.requestsFor('failing')).toHaveLength(5);
  expect(steps.map((step) => step.reason)).toEqual([
    'next_turn',
    'next_turn',
    'next_turn:repeated_failure_warned',
    'next_turn:repeated_failure_warned',
    'stop:REPEATED_FAILURE',
  ]);
  // The model saw the warning in the third tool round.
  const third = h.model.requestsFor('failing')[3]?.body as { messages: Array<{ role: string; content: unknown }> };
  expect(JSON.stringify(third.messages)).toContain('The same call has failed the same way several times');
});

test('the thresholds come from the input, and a denial counts for nothing', async () => {
  const { failure } = await failedRun(
    'failing-early',
    () => ({ toolCalls: [{ name: 'read_file', arguments: { file_path: 'missing.txt' } }] }),
    { repeatedFailure: { warnAt: 1, stopAt: 2 } },
  );
  expect(failure.message).toBe('Repeated failure: the same read_file call failed 2 times with FileNotFoundError');
  h.model.setScenario('denied', (_b: unknown, i: number) =>
    i < 6 ? { toolCalls: [{ name: 'write_file', arguments: { file_path: 'x.txt', content: `v${i}` } }] } : { text: 'Gave up asking.' },
  );
  const handle = await h.start({ prompt: 'write', model: 'denied', workspace: h.workspace(), permissionMode: 'plan', stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Gave up asking.' });
});

test('the iteration limit is a stop with its step record', async () => {
  const { failure, steps } = await failedRun('limit', distinctCalls, { maxIterations: 4 });
  expect(failure).toMatchObject({ type: 'LLMCallError', message: 'Agent loop exceeded 4 iterations' });
  expect(steps.at(-1)).toMatchObject({ reason: 'stop:max_iterations', budget_after: { iterations: 0 } });
});

test('cancellation closes the run as cancelled after a last step record and kills a running bash', async () => {
  const marker = `bareagent-cancel-${Date.now()}`;
  h.model.setScenario('cancel-me', [{ toolCalls: [{ name: 'bash', arguments: { command: `touch bash.started; exec -a ${marker} sleep 60`, timeout: 120 } }] }]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'long', model: 'cancel-me', workspace, permissionMode: 'auto' });
  await waitFor(async () => (existsSync(path.join(workspace, 'bash.started')) && isMarkedRunning(marker) ? true : undefined), 'bash to start');
  await handle.cancel();
  const error = await handle.result().catch((err: unknown) => err);
  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  const steps = await handle.query(stepsQuery);
  expect(steps.at(-1)?.reason).toBe('stop:cancelled');
  await waitFor(async () => (isMarkedRunning(marker) ? undefined : true), 'the bash process to be killed');
});

