import { Harness } from '../support/harness';
import { pendingRequest } from '../support/wait-for';

/**
 * Workflow code keeps three stack frames (src/workflows/preloaded-modules.ts): the SDK's promise
 * hook then captures short stacks, and the Web UI's stack-trace view still shows where a run waits.
 */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

test('a run waiting for a human: the stack-trace query answers, with at most three frames a stack', async () => {
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
