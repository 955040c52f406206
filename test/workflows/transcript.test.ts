import { Harness } from '../support/harness';
import { pendingRequest, requestIdFor } from '../support/wait-for';
import { permissionDecisionSignal } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const FOUR_KB = `${'y'.repeat(4095)}\n`;

/** Byte size of each callModel's scheduled input, in history order. */
async function modelInputSizes(workflowId: string): Promise<number[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
    .map((e) => (e.activityTaskScheduledEventAttributes?.input?.payloads ?? []).reduce((n, p) => n + (p.data?.length ?? 0), 0));
}

test('each model call carries only the new messages: its input does not grow with the conversation', async () => {
  h.model.setScenario('growing', (_b: unknown, i: number) =>
    i < 20 ? { toolCalls: [{ id: `r${i}`, name: 'read_file', arguments: { file_path: 'big.txt', offset: i, limit: 1 } }] } : { text: 'read it twenty times' },
  );
  const handle = await h.start({ prompt: 'read', model: 'growing', workspace: h.workspace({ 'big.txt': FOUR_KB.repeat(30) }), stream: false });
  await handle.result();
  const sizes = await modelInputSizes(handle.workflowId);
  expect(sizes).toHaveLength(21);
  // The 21st call would carry 20 tool results (~80 KB) if it sent the whole transcript.
  expect(Math.max(...sizes.slice(2))).toBeLessThan(2 * (sizes[1] as number));
  // ...and the model still received every message.
  // The default system prompt, the prompt, and 20 rounds of a reply and its result.
  expect(h.model.requestsFor('growing').at(-1)?.body.messages).toHaveLength(2 + 20 * 2);
});

test('a worker that never saw the conversation gets it from the run itself', async () => {
  h.model.setScenario('handover', [
    { toolCalls: [{ id: 'a', name: 'read_file', arguments: { file_path: 'note.txt' } }] },
    { toolCalls: [{ id: 'b', name: 'bash', arguments: { command: 'touch later.txt' } }] },
    { text: 'done on the second worker' },
  ]);
  const handle = await h.start({ prompt: 'hand over', model: 'handover', workspace: h.workspace({ 'note.txt': 'hello\n' }) });
  await pendingRequest(handle);
  await h.stopWorkers();
  await h.startWorker();
  await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'b'), decision: 'allow' });
  expect(await handle.result()).toMatchObject({ text: 'done on the second worker' });
  const last = h.model.requestsFor('handover').at(-1)?.body.messages;
  expect(last.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
  expect(last[3].content).toBe('1: hello');
});
