/**
 * An at-most-once call (bash) whose worker is SIGKILLed while it runs: it is never run again, the
 * model gets an error result that says what is known, and the run shows it: a `may_have_run` step
 * and an entry in `status` with the idempotency key the command saw as BAREAGENT_CALL_ID, how long
 * it ran and what changed in the workspace since it started.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import path from 'node:path';
import type { ToolResultBlock } from '../../src/common/messages';
import type { AgentRunResult } from '../../src/common/wire';
import { messagesQuery, statusQuery, stepsQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';

let h: Harness;
let worker: WorkerProcess | undefined;
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(async () => {
  await worker?.kill();
  await h.close();
});

test('bash lost with its worker: never run twice, an error result with what is known, a may_have_run step and status entry', async () => {
  const command = 'echo "$BAREAGENT_CALL_ID" > key.txt; echo run >> runs.log; sleep 3; touch late.txt; sleep 60';
  h.model.setScenario('lost-bash', [
    { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command, timeout: 120 } }] },
    { text: 'I will check before running it again.' },
  ]);
  const workspace = h.workspace({ 'untouched.txt': 'old\n' });
  worker = await WorkerProcess.start(h);
  const handle = await h.start({ prompt: 'run it', model: 'lost-bash', workspace, permissionMode: 'auto', stream: false });
  await waitFor(async () => (existsSync(path.join(workspace, 'late.txt')) ? true : undefined), 'the command to get going', 60_000);
  await new Promise((r) => setTimeout(r, 1_500)); // a heartbeat or two with its running time
  await worker.kill();
  worker = await WorkerProcess.start(h);

  const result = (await handle.result()) as AgentRunResult;
  expect(result.text).toBe('I will check before running it again.');
  const key = `${handle.workflowId}/b1`;
  expect(readFileSync(path.join(workspace, 'key.txt'), 'utf8').trim()).toBe(key);
  expect(readFileSync(path.join(workspace, 'runs.log'), 'utf8')).toBe('run\n'); // at most once

  const messages = await handle.query(messagesQuery);
  const toolResult = (messages[2]?.content as ToolResultBlock[])[0];
  expect(toolResult?.is_error).toBe(true);
  expect(toolResult?.content).toMatch(/^Error: TimeoutError: timed out; the worker running it may have been lost/);
  expect(toolResult?.content).toMatch(/It ran at least \d+\.\d s\./);
  expect(toolResult?.content).toContain('"late.txt"');
  expect(toolResult?.content).not.toContain('untouched.txt');

  const status = await handle.query(statusQuery);
  expect(status.mayHaveRun).toHaveLength(1);
  const [lost] = status.mayHaveRun ?? [];
  expect(lost).toMatchObject({ step: 1, callId: 'b1', tool: 'bash', idempotencyKey: key });
  expect(lost?.call).toContain('sleep 60');
  expect(lost?.ranAtLeastMs).toBeGreaterThanOrEqual(3_000);
  expect(lost?.lostAfterMs).toBeGreaterThanOrEqual(20_000); // the at-most-once heartbeat timeout
  expect(lost?.workspaceChanges?.files).toEqual(expect.arrayContaining(['"key.txt"', '"runs.log"', '"late.txt"']));
  expect(lost?.workspaceChanges?.files).not.toContain('"untouched.txt"');

  const steps = await handle.query(stepsQuery);
  const step = steps.find((s) => s.reason === 'may_have_run');
  expect(step?.detail).toContain(`Idempotency key ${key}.`);
  expect(step?.tools[0]).toContain('bash');
  // Recorded once the round's results are in the conversation, before that round's own step.
  expect(steps.map((s) => s.reason)).toEqual(['may_have_run', 'next_turn', 'stop:final_answer']);

  // For test/histories/may-have-run-lost-bash.json (a lost worker is not something record.ts can stage).
  mkdirSync(path.join(__dirname, '../../artifacts'), { recursive: true });
  writeFileSync(path.join(__dirname, '../../artifacts/may-have-run-history.json'), historyToJSON(await handle.fetchHistory()));
});
