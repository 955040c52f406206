/**
 * One model call whose worker is SIGKILLed while the call is in flight, again and again (a
 * rolling deploy, a crash loop): lost workers are not provider failures, so the call is retried
 * as often as it takes, one attempt at a time, while provider errors keep their own four attempts.
 * Figures go to artifacts/model-call-kills-report.json. Each kill costs the replacement worker's
 * start plus the short lost-worker backoff (at most 5 s): the new worker fails the dead one's
 * attempt as it starts (src/worker/orphaned-attempts.ts), so the 10 s heartbeat timeout is not
 * waited for.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import type { AgentRunResult } from '../../src/common/wire';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';

const ROOT = path.resolve(__dirname, '../..');
const REPORT_FILE = path.join(ROOT, 'artifacts/model-call-kills-report.json');
const report: Record<string, unknown> = {};

let h: Harness;
let worker: WorkerProcess | undefined;
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(async () => {
  await worker?.kill();
  await h.close();
  mkdirSync(path.dirname(REPORT_FILE), { recursive: true });
  writeFileSync(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`model call kills (${REPORT_FILE}):\n${JSON.stringify(report, null, 2)}`);
});

/**
 * Kills the only worker `kills` times, each time while model request number k (from 1) is open,
 * and starts its replacement at once. One worker at a time: on this shared machine a worker's
 * start can take longer than the heartbeat timeout, and a pool of two was flakier than it saved.
 */
async function killDuringCalls(scenario: string, kills: number): Promise<number[]> {
  const gaps: number[] = [];
  for (let k = 1; k <= kills; k++) {
    // In flight by construction: the model never answers request k (the scenarios hang it).
    const request = await waitFor(async () => h.model.requestsFor(scenario)[k - 1], `model request #${k} of ${scenario}`, 120_000);
    expect(h.model.requestsFor(scenario)).toHaveLength(k); // no second attempt beside it
    await worker?.kill();
    const previous = h.model.requestsFor(scenario)[k - 2];
    if (previous) gaps.push(request.receivedAt - previous.receivedAt);
    worker = await WorkerProcess.start(h);
  }
  return gaps;
}

/** The attempt number of the run's model call as the server last started it. */
async function lastAttempt(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  const attempts = (history.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0);
  return Math.max(...attempts);
}

for (const kills of [6, 20]) {
  test(`a model call lives through ${kills} SIGKILLed workers in a row: called once per kill plus once, never twice at once`, async () => {
    const scenario = `slow-${kills}`;
    const text = `Answered after ${kills} lost workers.`;
    h.model.setScenario(scenario, (_body, index) => (index < kills ? { hang: true } : { text }));
    worker = await WorkerProcess.start(h);
    const started = Date.now();
    const handle = await h.start({ prompt: 'one slow answer', model: scenario, stream: false, workspace: h.workspace() });
    const gaps = await killDuringCalls(scenario, kills);
    const result = (await handle.result()) as AgentRunResult;

    expect(result).toMatchObject({ text, stopReason: 'final_answer', iterations: 1 });
    expect(h.model.requestsFor(scenario)).toHaveLength(kills + 1);
    expect(h.model.maxConcurrent(scenario)).toBe(1);
    expect(await lastAttempt(handle)).toBe(kills + 1);
    report[`kills${kills}`] = {
      kills,
      modelRequests: h.model.requestsFor(scenario).length,
      maxConcurrentRequests: h.model.maxConcurrent(scenario),
      msBetweenAttempts: { min: Math.min(...gaps), max: Math.max(...gaps), each: gaps },
      durationMs: Date.now() - started,
    };
    await worker.kill();
  });
}

test('lost workers leave the provider its own four attempts: 2 kills, then a provider that is down, is 6 requests and LLMCallError', async () => {
  const scenario = 'slow-then-down';
  h.model.setScenario(scenario, (_body, index) => (index < 2 ? { hang: true } : { status: 503, errorMessage: 'upstream is down' }));
  worker = await WorkerProcess.start(h);
  const handle = await h.start({ prompt: 'one slow answer', model: scenario, stream: false, workspace: h.workspace() });
  await killDuringCalls(scenario, 2);
  const error = await handle.result().catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const failure = (error as WorkflowFailedError).cause as ApplicationFailure;
  expect(failure.type).toBe('LLMCallError');
  expect(failure.message).toBe('LLM call failed: InternalServerError: 503 upstream is down');
  expect(h.model.requestsFor(scenario)).toHaveLength(2 + 4);
  report.killsThenProviderDown = { kills: 2, modelRequests: h.model.requestsFor(scenario).length, attempts: await lastAttempt(handle) };
});
