import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { quietRuntime } from '../support/harness';
import { readTestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * The worker's patch of the SDK (patches/@temporalio+worker+1.23.0.patch): one deadlock watchdog
 * per activation instead of a watchdog thread per call into the workflow context, and the promise
 * hook (stack traces for the `__stack_trace` query) only when BAREAGENT_WORKFLOW_STACK_TRACES=1.
 * A worker's workflow thread reads both variables when it starts; the workers here run in their
 * own processes, since jest's process.env is not the one worker threads copy.
 */
quietRuntime();

const SPIN_WORKER = path.resolve(__dirname, '../support/spinning/worker-main.ts');

let client: Client;
let connection: Connection;
const children: ChildProcess[] = [];
beforeAll(async () => {
  connection = await Connection.connect({ address: readTestEnv().address });
  client = new Client({ connection });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await connection?.close();
});

/** A worker of the spinning workflows in its own process (its workflow thread reads the real environment). */
async function spinWorker(taskQueue: string, vars: Record<string, string | undefined>): Promise<{ child: ChildProcess; output: () => string }> {
  const env = { ...process.env };
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', SPIN_WORKER, readTestEnv().address, taskQueue], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`spinning worker exited:\n${output}`);
    return output.includes('Worker polling') ? true : undefined;
  }, 'the spinning worker', 60_000);
  return { child, output: () => output };
}

test.each([
  ['one watchdog per activation (the default)', undefined],
  ["the SDK's watchdog per call", 'per-call'],
])('%s: a workflow that never yields has its activation ended after the timeout', async (_, watchdog) => {
  const taskQueue = `vm-watchdog-${randomUUID()}`;
  const worker = await spinWorker(taskQueue, { BAREAGENT_VM_WATCHDOG: watchdog });
  const spinning = await client.workflow.start('spinsOnSignal', { taskQueue, workflowId: `spin-${randomUUID()}` });
  await spinning.signal('spin');
  // The worker fails the task with the watchdog's error. On Node 20 the process then dies, with
  // either watchdog (a timed-out microtask corrupts the async-hook stack, nodejs/node#38503),
  // often before it logs or reports the failure. Each of the three shows the watchdog ended the
  // activation; without one the thread would spin on and none would come.
  const ended = /Failing workflow task.*Script execution timed out after 1000ms|async hook stack has become corrupted/;
  const evidence = await waitFor(async () => ended.exec(worker.output())?.[0], 'the watchdog', 30_000);
  expect(evidence).toBeTruthy();
  const failedTasks = ((await spinning.fetchHistory()).events ?? []).flatMap((e) => e.workflowTaskFailedEventAttributes?.failure?.message ?? []);
  for (const message of failedTasks) expect(message).toBe('Script execution timed out after 1000ms');
  await spinning.terminate('test over');
  worker.child.kill('SIGKILL');
});

test('the stack-trace query answers only on a worker started with BAREAGENT_WORKFLOW_STACK_TRACES=1', async () => {
  for (const stackTraces of [undefined, '1']) {
    const taskQueue = `vm-watchdog-${randomUUID()}`;
    const { child } = await spinWorker(taskQueue, { BAREAGENT_WORKFLOW_STACK_TRACES: stackTraces });
    const waiting = await client.workflow.start('waitsForSignal', { taskQueue, workflowId: `wait-${randomUUID()}` });
    if (stackTraces) expect(await waiting.query<string>('__stack_trace')).toMatch(/waitsForSignal/);
    else await expect(waiting.query('__stack_trace')).rejects.toThrow(/stack traces are not enabled/);
    await waiting.signal('spin');
    expect(await waiting.result()).toBe('done');
    child.kill('SIGKILL');
  }
});
