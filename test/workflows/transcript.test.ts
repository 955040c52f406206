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

/** The `transcript` field of each callModel's scheduled input, in history order. */
async function transcriptRefs(workflowId: string): Promise<Array<{ from: number; total: number; predicted?: { messages: number } }>> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
    .map((e) => JSON.parse(Buffer.from(e.activityTaskScheduledEventAttributes?.input?.payloads?.[0]?.data ?? []).toString()).transcript);
}

test('a read run ahead goes into the history once: the next call leaves out the reply and its result, and the model still gets them', async () => {
  h.model.setScenario('predicted', [
    { toolCalls: [{ id: 'a', name: 'read_file', arguments: { file_path: 'one.txt' } }] },
    { toolCalls: [{ id: 'b', name: 'read_file', arguments: { file_path: 'two.txt' } }] },
    { text: 'read both' },
  ]);
  const handle = await h.start({ prompt: 'read them', model: 'predicted', workspace: h.workspace({ 'one.txt': `one\n${FOUR_KB}`, 'two.txt': `two\n${FOUR_KB}` }), stream: false });
  expect(await handle.result()).toMatchObject({ text: 'read both' });
  const refs = await transcriptRefs(handle.workflowId);
  expect(refs.slice(1).map((ref) => ref.predicted?.messages)).toEqual([2, 2]);
  const sizes = await modelInputSizes(handle.workflowId);
  // The second and third inputs carry neither file: 4 KB each if they did.
  expect(Math.max(...sizes.slice(1))).toBeLessThan(4096);
  const last = h.model.requestsFor('predicted').at(-1)?.body.messages;
  expect(last.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
  expect(last[3].content).toBe(`1: one\n2: ${FOUR_KB.trimEnd()}`);
  expect(last[5].content).toBe(`1: two\n2: ${FOUR_KB.trimEnd()}`);
});

test('a round whose results the run changed (a note after them) is sent as the run holds it', async () => {
  // The same read twice, then a third time: the third round learned nothing new and ends with a note.
  const read = (id: string) => ({ toolCalls: [{ id, name: 'read_file', arguments: { file_path: 'one.txt' } }] });
  h.model.setScenario('noted', [read('a'), read('b'), read('c'), { text: 'done' }]);
  const handle = await h.start({ prompt: 'read it', model: 'noted', workspace: h.workspace({ 'one.txt': 'one\n' }), stream: false });
  expect(await handle.result()).toMatchObject({ text: 'done' });
  const last = h.model.requestsFor('noted').at(-1)?.body.messages as Array<{ role: string; content: unknown }>;
  const refs = await transcriptRefs(handle.workflowId);
  // The first read is left out of the second call; the second and third rounds ended with a note, so each went as the run holds it.
  expect(refs.map((ref) => [ref.from, ref.total, ref.predicted?.messages])).toEqual([[0, 1, undefined], [3, 3, 2], [3, 5, undefined], [5, 7, undefined]]);
  expect(last.filter((m) => m.role === 'tool')).toHaveLength(3);
  expect(JSON.stringify(last)).toContain('nothing new');
});

test('a worker that did not make the last call reads the left-out messages from the run', async () => {
  h.model.setScenario('predicted-handover', [
    { toolCalls: [{ id: 'a', name: 'read_file', arguments: { file_path: 'note.txt' } }] },
    { toolCalls: [{ id: 'b', name: 'bash', arguments: { command: 'touch later.txt' } }] },
    { text: 'done' },
  ]);
  const handle = await h.start({ prompt: 'hand over', model: 'predicted-handover', workspace: h.workspace({ 'note.txt': 'hello\n' }) });
  // The second call (after the read) ran on the first worker; the third, after the restart, on a worker with no prediction.
  await pendingRequest(handle);
  await h.stopWorkers();
  await h.startWorker();
  await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'b'), decision: 'allow' });
  expect(await handle.result()).toMatchObject({ text: 'done' });
  const last = h.model.requestsFor('predicted-handover').at(-1)?.body.messages;
  expect(last[3].content).toBe('1: hello');
});
