/**
 * AG-UI across a restart of the Temporal server (`npm run test:chaos`: it restarts a server of its
 * own, too slow for the main suite): an HttpAgent that hung up mid-stream reconnects with the last
 * event id it saw, once the server is back, and gets every event after it exactly once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { startApproverUi, type ApproverUi } from '../support/approver-ui';
import { cliEnv } from '../support/cli';
import { Harness } from '../support/harness';
import { restartableServer, type RestartableServer } from '../support/restartable-server';
import { readTestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';

const TOKEN = randomBytes(24).toString('hex');
const STREAMED = Array.from({ length: 12 }, (_, i) => `part ${i}. `);

let server: RestartableServer | undefined;
let h: Harness | undefined;
let worker: WorkerProcess | undefined;
let ui: ApproverUi | undefined;
afterAll(async () => {
  await ui?.stop();
  await worker?.kill();
  await h?.close().catch(() => undefined);
  if (!readTestEnv().cluster) await server?.stop();
});

const idOf = (event: BaseEvent) => (event.metadata as Record<string, string> | undefined)?.['bareagent.eventId'];
const textOf = (events: BaseEvent[]) =>
  events
    .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
    .map((e) => (e as unknown as { delta: string }).delta)
    .join('');
const order = (a: string, b: string) => Number(a.split(':')[0]) - Number(b.split(':')[0]) || Number(a.split(':')[1]) - Number(b.split(':')[1]);

test('disconnected mid-stream, reconnected after a restart of the Temporal server: every event exactly once', async () => {
  server = await restartableServer();
  h = await Harness.create({ 'agui-stream': [{ chunks: STREAMED, chunkDelayMs: 150 }] }, { address: server.address });
  const harness = h;
  worker = await WorkerProcess.start(harness);
  ui = await startApproverUi({ ...cliEnv(harness), BAREAGENT_UI_TOKEN: TOKEN });
  const threadId = `agui-${randomUUID()}`;
  const agent = new HttpAgent({ url: `${ui.url}/ag-ui`, headers: { Authorization: `Bearer ${TOKEN}` }, threadId });
  agent.addMessage({ id: randomUUID(), role: 'user', content: 'Stream a long answer' });
  const before: BaseEvent[] = [];
  let contents = 0;
  await agent
    .runAgent(
      { forwardedProps: { workspace: harness.workspace(), model: 'agui-stream' } },
      {
        onEvent: ({ event }) => {
          // What the client took before it hung up; events of the same chunk delivered after the abort are not seen.
          if (contents === 3) return;
          before.push(event);
          if (event.type === EventType.TEXT_MESSAGE_CONTENT && ++contents === 3) agent.abortRun();
        },
      },
    )
    .catch(() => undefined);
  const lastSeen = before.map(idOf).filter(Boolean).at(-1) as string;
  expect(lastSeen).toBeDefined();

  // The server goes down while the model still streams the turn, and comes back on the same data.
  const handle = harness.client.workflow.getHandle(threadId);
  expect((await handle.query<{ phase: string }>('status')).phase).not.toBe('idle');
  await server.stop();
  await server.start();
  if (worker.child.exitCode !== null) worker = await WorkerProcess.start(harness);
  await waitFor(async () => ((await handle.query<{ phase: string }>('status')).phase === 'idle' ? true : undefined), 'the run idle', 60_000);

  // The same page process: its client reaches the restarted server again.
  agent.headers['Last-Event-ID'] = lastSeen;
  const after: BaseEvent[] = [];
  await agent.runAgent({}, { onEvent: ({ event }) => void after.push(event) });
  expect(after.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
  expect(textOf(before) + textOf(after)).toBe(STREAMED.join(''));
  const ids = [...before, ...after].map(idOf).filter(Boolean) as string[];
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual([...ids].sort(order));
  expect(after.find((e) => idOf(e)) && idOf(after.find((e) => idOf(e)) as BaseEvent)).not.toBe(lastSeen);
});
