/**
 * One slow model call whose worker is SIGKILLed while the call is in flight, again and again (a
 * rolling deploy, a crash loop): lost workers are not provider failures, so the call is retried
 * as often as it takes, one attempt at a time, while provider errors keep their own four attempts.
 * Figures go to artifacts/model-call-kills-report.json. Each kill costs the model call's 10 s
 * heartbeat timeout plus the short lost-worker backoff (at most 5 s): about 16 s.
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
const CALL_MS = 5_000;
const report: Record<string, unknown> = {};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two workers live at all times, so that a replacement's start overlaps the heartbeat timeout. */
class WorkerPool {
  private live: WorkerProcess[] = [];
  private starting: Array<Promise<void>> = [];

  start(): void {
    this.starting.push(WorkerProcess.start(h).then((worker) => void this.live.push(worker)));
  }

  async ready(): Promise<void> {
    await Promise.all(this.starting);
  }

  /** The worker whose identity (`<pid>@<host>`) is this one. */
  find(identity: string): WorkerProcess | undefined {
    return this.live.find((worker) => identity.startsWith(`${worker.child.pid}@`));
  }

  async kill(worker: WorkerProcess): Promise<void> {
    this.live = this.live.filter((w) => w !== worker);
    await worker.kill();
  }

  async killAll(): Promise<void> {
    await this.ready();
    for (const worker of this.live) await this.kill(worker);
  }
}

let h: Harness;
let pool: WorkerPool;
beforeAll(async () => {
  h = await Harness.create();
  pool = new WorkerPool();
});
afterAll(async () => {
  await pool.killAll();
  await h.close();
  mkdirSync(path.dirname(REPORT_FILE), { recursive: true });
  writeFileSync(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`model call kills (${REPORT_FILE}):\n${JSON.stringify(report, null, 2)}`);
});

/** The worker that runs the workflow's pending activity now. */
function holder(handle: WorkflowHandle): Promise<WorkerProcess> {
  return waitFor(async () => {
    const { raw } = await handle.describe();
    return pool.find(raw.pendingActivities?.[0]?.lastWorkerIdentity ?? '');
  }, 'the worker that holds the model call');
}

/**
 * Kills the worker that holds the model call `kills` times, each time while model request number
 * k (from 1) is open, and starts a replacement beside the surviving worker.
 */
async function killDuringCalls(handle: WorkflowHandle, scenario: string, kills: number): Promise<number[]> {
  const gaps: number[] = [];
  for (let k = 1; k <= kills; k++) {
    const request = await waitFor(async () => h.model.requestsFor(scenario)[k - 1], `model request #${k} of ${scenario}`, 120_000);
    const victim = await holder(handle);
    await sleep(Math.max(0, request.receivedAt + 1_000 - Date.now())); // surely in flight: its answer is 4 s away
    expect(h.model.requestsFor(scenario)).toHaveLength(k); // no second attempt beside it
    await pool.kill(victim);
    pool.start();
    const previous = h.model.requestsFor(scenario)[k - 2];
    if (previous) gaps.push(request.receivedAt - previous.receivedAt);
  }
  return gaps;
}

async function twoWorkers(): Promise<void> {
  pool.start();
  pool.start();
  await pool.ready();
}

/** The attempt number of the run's model call as the server last started it. */
async function lastAttempt(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  const attempts = (history.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0);
  return Math.max(...attempts);
}

for (const kills of [6, 20]) {
  test(`a 5 s model call lives through ${kills} SIGKILLed workers in a row: called once per kill plus once, never twice at once`, async () => {
    const scenario = `slow-${kills}`;
    const text = `Answered after ${kills} lost workers.`;
    h.model.setScenario(scenario, () => ({ text, delayMs: CALL_MS }));
    await twoWorkers();
    const started = Date.now();
    const handle = await h.start({ prompt: 'one slow answer', model: scenario, stream: false, workspace: h.workspace() });
    const gaps = await killDuringCalls(handle, scenario, kills);
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
    await pool.killAll();
  });
}

test('lost workers leave the provider its own four attempts: 2 kills, then a provider that is down, is 6 requests and LLMCallError', async () => {
  const scenario = 'slow-then-down';
  h.model.setScenario(scenario, (_body, index) => (index < 2 ? { text: 'never seen', delayMs: CALL_MS } : { status: 503, errorMessage: 'upstream is down' }));
  await twoWorkers();
  const handle = await h.start({ prompt: 'one slow answer', model: scenario, stream: false, workspace: h.workspace() });
  await killDuringCalls(handle, scenario, 2);
  const error = await handle.result().catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const failure = (error as WorkflowFailedError).cause as ApplicationFailure;
  expect(failure.type).toBe('LLMCallError');
  expect(failure.message).toBe('LLM call failed: InternalServerError: 503 upstream is down');
  expect(h.model.requestsFor(scenario)).toHaveLength(2 + 4);
  report.killsThenProviderDown = { kills: 2, modelRequests: h.model.requestsFor(scenario).length, attempts: await lastAttempt(handle) };
});
