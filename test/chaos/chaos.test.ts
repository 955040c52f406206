/**
 * Crash tests (`npm run test:chaos`, not part of `npm test`): what production does to a durable
 * agent runtime, with figures.
 *
 * 1. 20 runs of 10 iterations each on two workers in their own processes, while a chaos loop
 *    SIGKILLs a random worker at random moments and starts a replacement. Every run must end with
 *    the undisturbed reference run's result, and no at-most-once tool call (bash, edit_file) may
 *    have run twice: each call leaves a countable trace in its workspace.
 * 2. A separate dev server on a persistent SQLite file (under `npm run test:cluster`: the cluster's
 *    server on PostgreSQL), stopped while runs wait on a slow tool, a slow model, a human and a
 *    timer, then started again on the same ports and data: the runs go on.
 *
 * The figures go to artifacts/chaos-report.json and to the console.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { ToolResultBlock } from '../../src/common/messages';
import type { AgentRunResult } from '../../src/common/wire';
import { Harness } from '../support/harness';
import { restartableServer, type RestartableServer } from '../support/restartable-server';
import { readTestEnv } from '../support/test-env';
import { pendingRequest, requestIdFor, waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';
import { callsOfRound, chaosModel, FINAL_TEXT, SEED_FILES, TOOL_ROUNDS } from './chaos-model';
import { decidePermissionUpdate, messagesQuery, statusQuery } from '../../src/common/contract';
import { withoutRunContext } from '../support/prompt-sent';

const ROOT = path.resolve(__dirname, '../..');
// The cluster stage runs this file too, at the same time as the chaos stage in CI: each its own files.
const ON_CLUSTER = process.env.BAREAGENT_TEST_SERVER === 'cluster';
const REPORT_FILE = path.join(ROOT, ON_CLUSTER ? 'artifacts/chaos-report-cluster.json' : 'artifacts/chaos-report.json');

const RUNS = 20;
const WORKERS = 2;
const MAX_KILLS = 20;
// A kill every one to three seconds (the first two sooner) while runs are open; the model holds each run until its kills have come (killsBeforeRound).
const KILL_GAP_MS: [number, number] = [1_000, 3_000];
const RUNS_DEADLINE_MS = 5 * 60_000;
// Round 9, the last with tools, waits for the 4th kill; rounds 3, 5 and 7 for the 1st, 2nd and 3rd.
const KILLS_PER_RUN = 4;
const killsBeforeRound = (round: number) => Math.min(KILLS_PER_RUN, Math.floor((round - 1) / 2));

const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
const random = mulberry32(seed);
const suiteStarted = Date.now();
const report: Record<string, unknown> = { seed };

afterAll(() => {
  report.suiteDurationMs = Date.now() - suiteStarted;
  mkdirSync(path.dirname(REPORT_FILE), { recursive: true });
  writeFileSync(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`chaos report (${REPORT_FILE}):\n${JSON.stringify(report, null, 2)}`);
});

/** A small seeded PRNG: a failing run can be repeated with CHAOS_SEED=<seed>. */
function mulberry32(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


// ---------------------------------------------------------------------------------------------

interface RunRecord {
  runId: string;
  handle: WorkflowHandle;
  workspace: string;
  startedAt: number;
  closedAt?: number;
  result?: AgentRunResult;
  error?: unknown;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Attempts and timeouts per activity type, read from the run's history. */
function activityFigures(events: HistoryEvent[]) {
  const typeOf = new Map<string, string>();
  const figures: Record<string, { activities: number; extraAttempts: number; timedOut: number }> = {};
  const of = (type: string) => (figures[type] ??= { activities: 0, extraAttempts: 0, timedOut: 0 });
  let workflowTaskTimeouts = 0;
  let workflowTaskFailures = 0;
  for (const event of events) {
    const id = String(event.eventId);
    if (event.activityTaskScheduledEventAttributes) {
      const type = event.activityTaskScheduledEventAttributes.activityType?.name ?? '?';
      typeOf.set(id, type);
      of(type).activities += 1;
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) of(typeOf.get(String(started.scheduledEventId)) ?? '?').extraAttempts += Math.max(0, (started.attempt ?? 1) - 1);
    const timedOut = event.activityTaskTimedOutEventAttributes;
    if (timedOut) of(typeOf.get(String(timedOut.scheduledEventId)) ?? '?').timedOut += 1;
    if (event.workflowTaskTimedOutEventAttributes) workflowTaskTimeouts += 1;
    if (event.workflowTaskFailedEventAttributes) workflowTaskFailures += 1;
  }
  return { figures, workflowTaskTimeouts, workflowTaskFailures };
}

describe('workers SIGKILLed at random moments', () => {
  let h: Harness;
  const workers: WorkerProcess[] = [];
  const workerLogs: string[] = [];

  // The kills are counted where the model can see them: a run's round r is answered only once
  // killsBeforeRound(r) workers have been killed, so every run lives through KILLS_PER_RUN kills
  // however fast it goes (a run that outran the kill loop once left the test with 3 kills in all).
  const kills: Array<{ at: number; worker: number; restartMs: number }> = [];
  const killWaiters: Array<{ count: number; resolve: () => void }> = [];
  const killsReached = (count: number) =>
    kills.length >= count ? undefined : new Promise<void>((resolve) => killWaiters.push({ count, resolve }));
  const recordKill = (kill: (typeof kills)[number]) => {
    kills.push(kill);
    for (const waiter of killWaiters.filter((w) => w.count <= kills.length)) {
      killWaiters.splice(killWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const gatedChaosModel = (body: Parameters<typeof chaosModel>[0]) => {
    const step = chaosModel(body);
    if (/^chaos ref$/.test(withoutRunContext(String(body.messages.find((m) => m.role === 'user')?.content)))) return step;
    const after = killsReached(killsBeforeRound(body.messages.filter((m) => m.role === 'assistant').length + 1));
    return after ? { ...step, after } : step;
  };

  beforeAll(async () => {
    h = await Harness.create({ chaos: gatedChaosModel });
    workers.push(...(await Promise.all(Array.from({ length: WORKERS }, () => WorkerProcess.start(h)))));
  });
  afterAll(async () => {
    for (const worker of workers) {
      workerLogs.push(worker.output.text);
      await worker.kill();
    }
    writeFileSync(path.join(ROOT, ON_CLUSTER ? 'artifacts/chaos-workers-cluster.log' : 'artifacts/chaos-workers.log'), workerLogs.join('\n----- next worker -----\n'));
    await h.close();
  });

  test(`${RUNS} runs of ${TOOL_ROUNDS + 1} iterations survive the kills with the undisturbed result, no at-most-once call twice`, async () => {
    mkdirSync(path.join(ROOT, 'artifacts'), { recursive: true });
    const start = (runId: string, stream: boolean) => {
      const workspace = h.workspace(SEED_FILES);
      return h
        .start({ prompt: `chaos ${runId}`, model: 'chaos', workspace, permissionMode: 'auto', stream }, `chaos-${runId}-${seed}-${Date.now()}`)
        .then((handle): RunRecord => ({ runId, handle, workspace, startedAt: Date.now() }));
    };

    // The undisturbed reference.
    const referenceStarted = Date.now();
    const reference = await start('ref', false);
    const referenceResult = (await reference.handle.result()) as AgentRunResult;
    report.referenceRun = { result: referenceResult, durationMs: Date.now() - referenceStarted };
    expect(referenceResult).toMatchObject({ text: FINAL_TEXT, iterations: TOOL_ROUNDS + 1 });

    // The chaos: 20 runs at once (half of them streaming), a random worker killed every few seconds.
    const chaosStarted = Date.now();
    const runs = await Promise.all(Array.from({ length: RUNS }, (_, i) => start(`r${String(i + 1).padStart(2, '0')}`, i % 2 === 0)));
    let open = runs.length;
    const closed = Promise.all(
      runs.map((run) =>
        run.handle.result().then(
          (result) => Object.assign(run, { result: result as AgentRunResult, closedAt: Date.now() }),
          (error: unknown) => Object.assign(run, { error, closedAt: Date.now() }),
        ).finally(() => (open -= 1)),
      ),
    );
    while (open > 0 && kills.length < MAX_KILLS && Date.now() - chaosStarted < RUNS_DEADLINE_MS) {
      // The first two kills come quickly, while every run is surely still open.
      const [low, high] = kills.length < 2 ? [500, 1_500] : KILL_GAP_MS;
      const gap = low + random() * (high - low);
      const until = Date.now() + gap;
      while (open > 0 && Date.now() < until) await sleep(100);
      if (open === 0) break;
      const index = Math.floor(random() * workers.length);
      const victim = workers[index] as WorkerProcess;
      await victim.kill();
      const at = Date.now();
      workerLogs.push(victim.output.text);
      workers[index] = await WorkerProcess.start(h);
      recordKill({ at, worker: index, restartMs: Date.now() - at });
    }
    const lastKillAt = Date.now();
    let deadline: NodeJS.Timeout | undefined;
    const settled = await Promise.race([closed, new Promise<undefined>((r) => (deadline = setTimeout(() => r(undefined), RUNS_DEADLINE_MS)))]);
    clearTimeout(deadline);
    if (!settled) {
      const states = await Promise.all(runs.map(async (r) => `${r.runId}: ${JSON.stringify(await r.handle.query(statusQuery).catch((e: Error) => e.message))}`));
      throw new Error(`runs did not close within ${RUNS_DEADLINE_MS} ms:\n${states.join('\n')}`);
    }
    const chaosDurationMs = Date.now() - chaosStarted;

    // Count what each side-effecting call did.
    const atMostOnce = { bash: 0, edit_file: 0 };
    const duplicates: string[] = [];
    const lostNeverRan: string[] = [];
    const ranButResultLost: string[] = [];
    const okButNotRun: string[] = [];
    const wrongFiles: string[] = [];
    const erroredRepeatable: string[] = [];
    const perType: Record<string, { activities: number; extraAttempts: number; timedOut: number }> = {};
    let workflowTaskTimeouts = 0;
    let workflowTaskFailures = 0;
    const killsPerRun: number[] = [];
    const mismatched: string[] = [];
    for (const run of runs) {
      if (run.error !== undefined || JSON.stringify(run.result) !== JSON.stringify(referenceResult)) {
        mismatched.push(`${run.runId}: ${run.error !== undefined ? failureChain(run.error) : JSON.stringify(run.result)}`);
      }
      killsPerRun.push(kills.filter((k) => k.at >= run.startedAt && k.at <= (run.closedAt ?? Infinity)).length);
      const log = readFileSync(path.join(run.workspace, 'calls.log'), 'utf8').split('\n').filter(Boolean);
      const edits = readFileSync(path.join(run.workspace, 'edits.txt'), 'utf8');
      const messages = await run.handle.query(messagesQuery);
      const results = new Map<string, ToolResultBlock>();
      for (const message of messages) {
        if (message.role !== 'user' || typeof message.content === 'string') continue;
        for (const block of message.content as ToolResultBlock[]) if (block.type === 'tool_result') results.set(block.tool_use_id, block);
      }
      for (let n = 1; n <= TOOL_ROUNDS; n++) {
        for (const call of callsOfRound(run.runId, n)) {
          const result = results.get(call.id);
          let executions: number | undefined;
          if (call.name === 'bash') executions = log.filter((line) => line === call.id).length;
          if (call.name === 'edit_file') executions = edits.split('\n').find((l) => l.startsWith(`[e${n}]`))?.replace(`[e${n}]`, '').length ?? 0;
          if (executions !== undefined) {
            atMostOnce[call.name as 'bash' | 'edit_file'] += 1;
            if (executions > 1) duplicates.push(`${call.id} ran ${executions} times`);
            if (result?.is_error) (executions === 0 ? lostNeverRan : ranButResultLost).push(`${call.id}: ${result.content.slice(0, 120)}`);
            else if (executions !== 1) okButNotRun.push(`${call.id} ran ${executions} times but its result is ${JSON.stringify(result)}`);
            continue;
          }
          if (result?.is_error) erroredRepeatable.push(`${call.id}: ${result.content.slice(0, 120)}`);
          // A run that did not get this far is reported by `mismatched`, a failed call by `erroredRepeatable`.
          if (call.name === 'write_file' && result && !result.is_error) {
            const content = readFileSync(path.join(run.workspace, call.arguments.file_path as string), 'utf8');
            if (content !== call.arguments.content) wrongFiles.push(`${call.id}: ${JSON.stringify(content)}`);
          }
        }
      }
      const history = await run.handle.fetchHistory();
      const figures = activityFigures(history.events ?? []);
      workflowTaskTimeouts += figures.workflowTaskTimeouts;
      workflowTaskFailures += figures.workflowTaskFailures;
      for (const [type, f] of Object.entries(figures.figures)) {
        const total = (perType[type] ??= { activities: 0, extraAttempts: 0, timedOut: 0 });
        total.activities += f.activities;
        total.extraAttempts += f.extraAttempts;
        total.timedOut += f.timedOut;
      }
    }

    const completed = runs.filter((r) => r.result !== undefined).length;
    report.chaos = {
      runs: RUNS,
      iterationsPerRun: TOOL_ROUNDS + 1,
      workers: WORKERS,
      runsCompleted: completed,
      runsWithTheReferenceResult: RUNS - mismatched.length,
      kills: kills.length,
      killsSurvivedPerRun: {
        min: Math.min(...killsPerRun),
        mean: Number((killsPerRun.reduce((a, b) => a + b, 0) / killsPerRun.length).toFixed(1)),
        max: Math.max(...killsPerRun),
        each: killsPerRun,
      },
      workerRestartMs: { mean: Math.round(kills.reduce((a, k) => a + k.restartMs, 0) / Math.max(1, kills.length)) },
      atMostOnceCalls: atMostOnce,
      duplicatesOfAtMostOnceCalls: duplicates.length,
      lostAtMostOnceCalls: { neverRan: lostNeverRan.length, ranButResultLost: ranButResultLost.length, examples: [...lostNeverRan, ...ranButResultLost].slice(0, 6) },
      atLeastOnceAndModelRetries: perType,
      repeatableToolErrors: erroredRepeatable.length,
      workflowTaskTimeouts,
      workflowTaskFailures,
      chaosDurationMs,
      lastKillToLastRunClosedMs: Date.now() - lastKillAt,
    };

    expect(mismatched).toEqual([]);
    expect(completed).toBe(RUNS);
    expect(duplicates).toEqual([]);
    expect(okButNotRun).toEqual([]);
    expect(wrongFiles).toEqual([]);
    expect(erroredRepeatable).toEqual([]);
    expect(workflowTaskFailures).toBe(0);
    // The chaos really happened: no run could close before the KILLS_PER_RUN-th kill, and all
    // of them started before the first.
    expect(kills.length).toBeGreaterThanOrEqual(KILLS_PER_RUN);
    expect(Math.min(...killsPerRun)).toBeGreaterThanOrEqual(KILLS_PER_RUN);
  });
});

describe('the server stopped and started again (persistent SQLite, or PostgreSQL under test:cluster)', () => {
  let server: RestartableServer | undefined;
  let r: Harness | undefined;
  let worker: WorkerProcess | undefined;

  afterAll(async () => {
    await worker?.kill();
    await r?.close().catch(() => undefined);
    if (!readTestEnv().cluster) await server?.stop();
  });

  test('runs waiting on a slow tool, a slow model, a human and a timer go on after the restart', async () => {
    const started = Date.now();
    server = await restartableServer();
    const serverStartMs = Date.now() - started;
    r = await Harness.create(
      {
        'slow-tool': [
          { toolCalls: [{ id: 'slow', name: 'bash', arguments: { command: 'echo begun >> calls.log; sleep 15; echo slow-done >> calls.log', timeout: 60 } }] },
          { text: 'The slow tool is done.' },
        ],
        'slow-model': [{ text: 'The slow model answered.', delayMs: 12_000 }],
        human: [
          { toolCalls: [{ id: 'ask', name: 'bash', arguments: { command: 'touch approved.txt' } }] },
          { text: 'Approved and done.' },
        ],
        timer: [
          { toolCalls: [{ id: 'wait', name: 'bash', arguments: { command: 'touch never.txt' } }] },
          { text: 'Nobody answered.' },
        ],
      },
      { address: server.address },
    );
    const h = r;
    worker = await WorkerProcess.start(h);
    const slowWs = h.workspace();
    const humanWs = h.workspace();
    const timerWs = h.workspace();
    const slowTool = await h.start({ prompt: 'slow tool', model: 'slow-tool', workspace: slowWs, permissionMode: 'auto' });
    const slowModel = await h.start({ prompt: 'slow model', model: 'slow-model', workspace: h.workspace(), stream: false });
    const human = await h.start({ prompt: 'ask me', model: 'human', workspace: humanWs });
    const timer = await h.start({ prompt: 'time out', model: 'timer', workspace: timerWs, approvalTimeout: '20s' });
    await waitFor(async () => (readFileSync(path.join(slowWs, 'calls.log'), 'utf8').includes('begun') ? true : undefined), 'the slow tool to start');
    const asked = await requestIdFor(human, 'ask');
    await pendingRequest(timer, 'wait');
    await waitFor(async () => (h.model.requestsFor('slow-model').length ? true : undefined), 'the slow model call');

    // Stop the server in the middle of all four, then start it on the same ports and data.
    const stoppedAt = Date.now();
    await server.stop();
    const stopMs = Date.now() - stoppedAt;
    await sleep(1_000);
    await server.start();
    const downMs = Date.now() - stoppedAt;

    // The human answers after the restart.
    await waitFor(() => human.executeUpdate(decidePermissionUpdate, { args: [{ requestId: asked, decision: 'allow' }] }), 'the update after the restart', 60_000);
    const workerExitedWhileDown = worker.child.exitCode !== null;
    if (workerExitedWhileDown) worker = await WorkerProcess.start(h);

    const results = await Promise.all([slowTool, slowModel, human, timer].map((handle) => handle.result() as Promise<AgentRunResult>));
    expect(results.map((res) => res.text)).toEqual(['The slow tool is done.', 'The slow model answered.', 'Approved and done.', 'Nobody answered.']);
    const slowResult = ((await slowTool.query(messagesQuery))[2]?.content as ToolResultBlock[])[0];
    const slowLog = readFileSync(path.join(slowWs, 'calls.log'), 'utf8').trim().split('\n');
    expect(slowLog.filter((l) => l === 'begun')).toHaveLength(1); // at most once, also across the restart
    expect(readFileSync(path.join(humanWs, 'approved.txt'), 'utf8')).toBe('');
    const timerMessages = await timer.query(messagesQuery);
    expect((timerMessages[2]?.content as ToolResultBlock[])[0]).toMatchObject({ content: 'User denied.', is_error: true });

    report.serverRestart = {
      server: server.kind,
      runs: 4,
      runsCompleted: results.length,
      serverStartMs,
      serverStopMs: stopMs,
      serverDownMs: downMs,
      workerExitedWhileServerDown: workerExitedWhileDown,
      slowToolResultAfterRestart: slowResult?.is_error ? slowResult.content.slice(0, 160) : 'ok (its completion reached the restarted server)',
      slowToolLog: slowLog,
      durationMs: Date.now() - started,
    };
  });
});

/** A failed run's error with every cause under it: "Workflow execution failed" alone says nothing. */
function failureChain(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 6; e = e.cause) parts.push(`${e.name}: ${e.message}`);
  return parts.join(' <- ');
}
