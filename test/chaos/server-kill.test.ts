/**
 * The embedded server SIGKILLed under load (`npm run test:chaos`): its SQLite file runs with a
 * write-ahead log and synchronous=normal (src/server/dev-server.ts), which must lose nothing a
 * crash of the server process can take. Runs started and steps recorded before the kill are all
 * there after the restart, every run finishes with its scripted answer, and no at-most-once
 * call (bash, edit_file) ran twice. Figures go to artifacts/server-kill-report.json.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentRunResult } from '../../src/common/wire';
import { ensureDevServer, type DevServer } from '../../src/server/dev-server';
import { freePort } from '../support/free-port';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';
import { chaosModel, FINAL_TEXT, SEED_FILES, TOOL_ROUNDS } from './chaos-model';
import { stepsQuery } from '../../src/common/contract';

const ROOT = path.resolve(__dirname, '../..');
const RUNS = 8;

let server: DevServer | undefined;
let h: Harness | undefined;
let worker: WorkerProcess | undefined;
afterAll(async () => {
  await worker?.kill();
  await h?.close().catch(() => undefined);
  await server?.stop();
});

test(`${RUNS} runs survive a kill -9 of the embedded server (SQLite in WAL mode) with nothing lost`, async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-kill-'));
  const address = `127.0.0.1:${await freePort()}`;
  const options = { address, uiPort: await freePort(), home, startTimeoutMs: 90_000, log: () => undefined };
  server = await ensureDevServer(options);
  // Every run's fourth round is held until the server is back, so the kill lands mid-run for all of them.
  let serverBack: () => void = () => undefined;
  const restarted = new Promise<void>((resolve) => (serverBack = resolve));
  const heldChaosModel = (body: Parameters<typeof chaosModel>[0]) => {
    const step = chaosModel(body);
    return body.messages.filter((m) => m.role === 'assistant').length >= 3 ? { ...step, after: restarted } : step;
  };
  h = await Harness.create({ chaos: heldChaosModel }, { address });
  const harness = h;
  worker = await WorkerProcess.start(harness);

  const runs = await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const runId = `k${i + 1}`;
      const workspace = harness.workspace(SEED_FILES);
      const handle = await harness.start({ prompt: `chaos ${runId}`, model: 'chaos', workspace, permissionMode: 'auto', stream: i % 2 === 0 }, `kill-${runId}-${Date.now()}`);
      return { runId, workspace, handle };
    }),
  );
  // Every run is three rounds in and waits on its fourth.
  await waitFor(async () => (harness.model.requestsFor('chaos').length >= RUNS * 4 ? true : undefined), 'four model calls per run', 120_000);
  expect(existsSync(path.join(home, 'temporal.sqlite-wal'))).toBe(true);
  const stepsBefore = await Promise.all(runs.map((run) => run.handle.query(stepsQuery).then((steps) => steps.length)));

  const killedAt = Date.now();
  const serverProcess = server.process;
  if (!serverProcess) throw new Error('the test must own its server');
  const exited = new Promise((resolve) => serverProcess.once('exit', resolve));
  serverProcess.kill('SIGKILL');
  await exited;
  server = await ensureDevServer(options);
  const downMs = Date.now() - killedAt;
  expect(server.reused).toBe(false);
  serverBack();
  if (worker.child.exitCode !== null) worker = await WorkerProcess.start(harness);

  const results = (await Promise.all(runs.map((run) => run.handle.result()))) as AgentRunResult[];
  expect(results.map((r) => r.text)).toEqual(runs.map(() => FINAL_TEXT));
  expect(results.map((r) => r.iterations)).toEqual(runs.map(() => TOOL_ROUNDS + 1));
  const stepsAfter = await Promise.all(runs.map((run) => run.handle.query(stepsQuery).then((steps) => steps.length)));
  for (const [i, before] of stepsBefore.entries()) expect(stepsAfter[i]).toBeGreaterThanOrEqual(before);

  const duplicates: string[] = [];
  for (const run of runs) {
    const lines = readFileSync(path.join(run.workspace, 'calls.log'), 'utf8').split('\n').filter(Boolean);
    duplicates.push(...lines.filter((line, i) => lines.indexOf(line) !== i));
    const edits = readFileSync(path.join(run.workspace, 'edits.txt'), 'utf8');
    duplicates.push(...(edits.match(/\[e\d\]\+\+/g) ?? []).map((edit) => `${run.runId} ${edit}`));
  }
  expect(duplicates).toEqual([]);

  const report = { runs: RUNS, stepsBeforeKill: stepsBefore, stepsAfter, serverDownMs: downMs, durationAfterKillMs: Date.now() - killedAt };
  mkdirSync(path.join(ROOT, 'artifacts'), { recursive: true });
  writeFileSync(path.join(ROOT, 'artifacts/server-kill-report.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`server kill report: ${JSON.stringify(report)}`);
});
