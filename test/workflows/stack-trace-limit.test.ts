import { Harness } from '../support/harness';
import { pendingRequest } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';

/**
 * Workflow code keeps three stack frames (src/workflows/preloaded-modules.ts). A worker started
 * with BAREAGENT_WORKFLOW_STACK_TRACES=1 records a stack for every workflow promise (off by
 * default: patches/@temporalio+worker+1.23.0.patch), and the Web UI's stack-trace view then shows
 * where a run waits, in short stacks. The worker runs in its own process: worker threads copy the
 * real environment, not jest's.
 */
let h: Harness;
let worker: WorkerProcess | undefined;
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(async () => {
  await worker?.kill();
  await h.close();
});

test('a run waiting for a human: the stack-trace query answers, with at most three frames a stack', async () => {
  worker = await WorkerProcess.start(h, { BAREAGENT_WORKFLOW_STACK_TRACES: '1' });
  h.model.setScenario('stack', [{ text: 'Cleaning.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] }, { text: 'Done.' }]);
  const handle = await h.start({ prompt: 'clean up', model: 'stack', workspace: h.workspace({ 'build/x': 'x' }) });
  await pendingRequest(handle);
  const trace = await handle.query<string>('__stack_trace');
  const stacks = trace.split('\n\n').filter((s) => s.trim().length > 0);
  expect(stacks.length).toBeGreaterThan(0);
  const frames = stacks.map((s) => s.split('\n').filter((line) => line.trim().startsWith('at ')).length);
  expect(Math.max(...frames)).toBeLessThanOrEqual(3);
  expect(Math.min(...frames)).toBeGreaterThan(0);
  await handle.terminate('test over');
});
