import type { Client } from '@temporalio/client';
import { warnWhenNoWorker } from '../../src/cli/warn-no-worker';

const fakeClient = (events: object[]) =>
  ({ options: { namespace: 'default' }, workflowService: { getWorkflowExecutionHistory: async () => ({ history: { events } }) } }) as unknown as Client;
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

test('a run no worker picked up is reported, with how to start one', async () => {
  const lines: string[] = [];
  warnWhenNoWorker(fakeClient([{ workflowExecutionStartedEventAttributes: {} }]), 'r1', 'q1', (line) => lines.push(line), 10);
  await settle();
  expect(lines.join('\n')).toMatch(/No worker has picked up r1 .*"q1"[\s\S]*npm run worker/);
});

test('quiet once the first workflow task started, or when cancelled', async () => {
  const lines: string[] = [];
  warnWhenNoWorker(fakeClient([{ workflowTaskStartedEventAttributes: {} }]), 'r2', 'q', (line) => lines.push(line), 10);
  warnWhenNoWorker(fakeClient([]), 'r3', 'q', (line) => lines.push(line), 10)();
  await settle();
  expect(lines).toEqual([]);
});
