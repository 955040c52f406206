import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { HttpAgent, type AgentSubscriber } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { startApproverUi, type ApproverUi } from '../support/approver-ui';
import { cliEnv } from '../support/cli';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';

/**
 * AG-UI on `bareagent ui` (its own process), driven by @ag-ui/client's HttpAgent against the
 * shared dev server, a worker in its own process and the scripted model.
 */
const TOKEN = randomBytes(24).toString('hex');
const STREAMED = Array.from({ length: 12 }, (_, i) => `part ${i}. `);

let h: Harness;
let worker: WorkerProcess;
let ui: ApproverUi;

beforeAll(async () => {
  h = await Harness.create({
    'agui-turns': [
      { text: 'Making it.', toolCalls: [{ id: 'call_touch', name: 'bash', arguments: { command: 'touch made.txt' } }] },
      { text: 'Made it.' },
      { text: 'Nothing else.' },
    ],
    'agui-two-questions': [
      {
        toolCalls: [
          { id: 'call_one', name: 'bash', arguments: { command: 'touch one.txt' } },
          { id: 'call_two', name: 'bash', arguments: { command: 'touch two.txt' } },
        ],
      },
      { text: 'Both made.' },
    ],
    'agui-stream': [{ chunks: STREAMED, chunkDelayMs: 150 }],
  });
  worker = await WorkerProcess.start(h);
  ui = await startApproverUi({ ...cliEnv(h), BAREAGENT_UI_TOKEN: TOKEN });
});
afterAll(async () => {
  await ui?.stop();
  await worker?.kill();
  await h?.close();
});

const idOf = (event: BaseEvent) => (event.metadata as Record<string, string> | undefined)?.['bareagent.eventId'];

function client(threadId: string, base = ui.url) {
  const agent = new HttpAgent({ url: `${base}/ag-ui`, headers: { Authorization: `Bearer ${TOKEN}` }, threadId });
  const events: BaseEvent[] = [];
  const subscriber: AgentSubscriber = { onEvent: ({ event }) => void events.push(event) };
  const say = (text: string) => agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  return { agent, events, subscriber, say };
}

const ofType = (events: BaseEvent[], type: EventType) => events.filter((e) => e.type === type);
const textOf = (events: BaseEvent[]) => ofType(events, EventType.TEXT_MESSAGE_CONTENT).map((e) => (e as unknown as { delta: string }).delta).join('');

test('a turn with a tool call, its question answered as an AG-UI resume, a follow-up', async () => {
  const workspace = h.workspace();
  const c = client(`agui-${randomUUID()}`);
  c.say('Make made.txt');
  await c.agent.runAgent({ forwardedProps: { workspace, model: 'agui-turns' } }, c.subscriber);
  const first = [...c.events];
  expect(first[0]?.type).toBe(EventType.RUN_STARTED);
  expect(textOf(first)).toBe('Making it.');
  expect(ofType(first, EventType.TOOL_CALL_START)[0]).toMatchObject({ toolCallId: 'call_touch', toolCallName: 'bash' });
  expect(JSON.parse((ofType(first, EventType.TOOL_CALL_ARGS)[0] as unknown as { delta: string }).delta)).toEqual({ command: 'touch made.txt' });
  const finished = first.at(-1) as unknown as { type: string; outcome: { type: string; interrupts: Array<{ id: string; toolCallId: string; metadata: { tool: string; input: unknown; inputDigest: string } }> } };
  expect(finished.type).toBe(EventType.RUN_FINISHED);
  expect(finished.outcome.type).toBe('interrupt');
  const [interrupt] = finished.outcome.interrupts;
  expect(interrupt).toMatchObject({ toolCallId: 'call_touch', metadata: { tool: 'bash', input: { command: 'touch made.txt' } } });
  expect(existsSync(path.join(workspace, 'made.txt'))).toBe(false);

  // An answer naming another input's digest is refused, and the question stays open.
  await expect(
    c.agent.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { decision: 'allow', inputDigest: '0'.repeat(64) } }] }),
  ).rejects.toThrow(/409: the answer was refused: .*digest/i);
  c.events.length = 0;
  await c.agent.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { decision: 'allow', inputDigest: interrupt!.metadata.inputDigest } }] }, c.subscriber);
  const second = [...c.events];
  expect(ofType(second, EventType.CUSTOM)[0]).toMatchObject({ name: 'bareagent.permission_decided', value: { requestId: interrupt!.id, decision: 'allow' } });
  expect(ofType(second, EventType.TOOL_CALL_RESULT)[0]).toMatchObject({ toolCallId: 'call_touch' });
  expect(textOf(second)).toBe('Made it.');
  expect(ofType(second, EventType.STATE_SNAPSHOT).at(-1)).toMatchObject({ snapshot: { phase: 'idle', budgets: { used: { iterations: 2 } } } });
  expect(second.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
  expect((second.at(-1) as unknown as { outcome?: unknown }).outcome).toBeUndefined();
  expect(existsSync(path.join(workspace, 'made.txt'))).toBe(true);

  c.events.length = 0;
  c.say('Anything else?');
  await c.agent.runAgent({}, c.subscriber);
  expect(textOf(c.events)).toBe('Nothing else.');
  const ids = [...first, ...second, ...c.events].map(idOf).filter(Boolean);
  expect(new Set(ids).size).toBe(ids.length);
});

test('two questions of one step: each ends a response as its own interrupt; a closed run takes no more input', async () => {
  const workspace = h.workspace();
  const c = client(`agui-${randomUUID()}`);
  c.say('Make two files');
  type Finished = { outcome?: { type: string; interrupts: Array<{ id: string; toolCallId: string; metadata: { inputDigest: string } }> } };
  const answered: string[] = [];
  let finished = (await c.agent.runAgent({ forwardedProps: { workspace, model: 'agui-two-questions' } }, c.subscriber), c.events.at(-1) as unknown as Finished);
  while (finished.outcome?.type === 'interrupt') {
    const [interrupt] = finished.outcome.interrupts;
    answered.push(interrupt!.toolCallId);
    c.events.length = 0;
    await c.agent.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { decision: 'allow', inputDigest: interrupt!.metadata.inputDigest } }] }, c.subscriber);
    finished = c.events.at(-1) as unknown as Finished;
  }
  expect(answered.sort()).toEqual(['call_one', 'call_two']);
  expect(textOf(c.events)).toBe('Both made.');
  expect(existsSync(path.join(workspace, 'one.txt')) && existsSync(path.join(workspace, 'two.txt'))).toBe(true);

  const handle = h.client.workflow.getHandle(c.agent.threadId);
  await handle.cancel();
  await handle.result().catch(() => undefined); // closed: a cancel request alone leaves it running a moment
  c.say('Still there?');
  await expect(c.agent.runAgent({})).rejects.toThrow(/409: run .* is (canceled|cancelled).*Last-Event-ID/);
});

test('disconnected mid-stream, reconnected after a worker and a page restart: every event exactly once', async () => {
  const workspace = h.workspace();
  const threadId = `agui-${randomUUID()}`;
  const c = client(threadId);
  c.say('Stream a long answer');
  let contents = 0;
  const cut = c.agent.runAgent(
    { forwardedProps: { workspace, model: 'agui-stream' } },
    {
      onEvent: ({ event }) => {
        // What the client took before it hung up; events of the same chunk delivered after the abort are not seen.
        if (contents === 3) return;
        c.events.push(event);
        if (event.type === EventType.TEXT_MESSAGE_CONTENT && ++contents === 3) c.agent.abortRun();
      },
    },
  );
  await cut.catch(() => undefined);
  const before = [...c.events];
  expect(ofType(before, EventType.TEXT_MESSAGE_CONTENT)).toHaveLength(3);
  const lastSeen = before.map(idOf).filter(Boolean).at(-1) as string;

  // The run finishes its turn meanwhile; then its worker and the page's process are replaced.
  const handle = h.client.workflow.getHandle(threadId);
  await waitFor(async () => ((await handle.query<{ phase: string }>('status')).phase === 'idle' ? true : undefined), 'the run idle', 30_000);
  await worker.kill();
  worker = await WorkerProcess.start(h);
  await ui.stop();
  ui = await startApproverUi({ ...cliEnv(h), BAREAGENT_UI_TOKEN: TOKEN });

  const again = client(threadId, ui.url);
  again.agent.headers['Last-Event-ID'] = lastSeen;
  await again.agent.runAgent({}, again.subscriber);
  const after = again.events;
  expect(after.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
  expect(textOf(before) + textOf(after)).toBe(STREAMED.join(''));
  // The message the client saw open is opened again under its own id, with no event id of its own.
  const reopened = ofType(after, EventType.TEXT_MESSAGE_START)[0] as unknown as { messageId: string };
  expect(reopened.messageId).toBe((ofType(before, EventType.TEXT_MESSAGE_START)[0] as unknown as { messageId: string }).messageId);
  expect(idOf(reopened as unknown as BaseEvent)).toBeUndefined();
  const ids = [...before, ...after].map(idOf).filter(Boolean) as string[];
  expect(new Set(ids).size).toBe(ids.length);
  // No gap: the ids of each offset run 0..n, and the reconnect starts right after the last one seen.
  expect(idOf(after.find((e) => idOf(e)) as BaseEvent)).not.toBe(lastSeen);
  expect(ids).toEqual([...ids].sort((a, b) => (Number(a.split(':')[0]) - Number(b.split(':')[0])) || Number(a.split(':')[1]) - Number(b.split(':')[1])));
});

test('no token: 401; a foreign Origin: 403; a new thread without a workspace: refused clearly', async () => {
  const body = JSON.stringify({ threadId: `agui-${randomUUID()}`, runId: 'r1', messages: [{ id: 'm1', role: 'user', content: 'hi' }], tools: [], context: [] });
  const post = (headers: Record<string, string>) => fetch(`${ui.url}/ag-ui`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
  expect((await post({})).status).toBe(401);
  const foreign = await post({ Authorization: `Bearer ${TOKEN}`, Origin: 'https://evil.example' });
  expect(foreign.status).toBe(403);
  expect(await foreign.text()).toMatch(/evil\.example is not this page's/);
  const noWorkspace = await post({ Authorization: `Bearer ${TOKEN}` });
  expect(noWorkspace.status).toBe(400);
  expect(await noWorkspace.text()).toMatch(/forwardedProps\.workspace/);
});
