import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { BareAgentPlugin, defineTool } from '../../src/public/worker';
import { messagesQuery, startRun, statusQuery } from '../../src/public/client';
import type { ToolResultBlock } from '../../src/common/messages';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';

/**
 * The agent in a user's own worker: BareAgentPlugin on a task queue of the user's, a tool from
 * the user's code (defineTool), and agentRun as a child of the user's workflow.
 */
let h: Harness;
let worker: Worker;
let connection: NativeConnection;
let running: Promise<void>;
const taskQueue = `user-queue-${Date.now()}`;
const lookups: unknown[] = [];

const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Look up an order by its id',
  parameters: z.strictObject({ order_id: z.string().min(1) }),
  effect: 'read',
  execute: (args) => {
    lookups.push(args);
    return `order ${args.order_id}: shipped`;
  },
});
const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refund an order',
  parameters: z.strictObject({ order_id: z.string().min(1) }),
  effect: 'once',
  execute: () => 'refunded',
});

beforeAll(async () => {
  h = await Harness.create();
  connection = await NativeConnection.connect({ address: h.env.address });
  worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowsPath: path.join(__dirname, '../fixtures/embedding/workflows.ts'),
    plugins: [new BareAgentPlugin({ model: { baseURL: h.model.url, apiKey: 'sk-test' }, tools: [lookupOrder, refundOrder] })],
  });
  running = worker.run();
}, 180_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await h?.close();
});

const toolResults = (messages: Array<{ role: string; content: unknown }>): ToolResultBlock[] =>
  messages.flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? (m.content as ToolResultBlock[]).filter((b) => b.type === 'tool_result') : []));

test("a parent workflow runs agentRun as a child; the model calls the user's tool, which gets the model's arguments", async () => {
  h.model.setScenario('desk', [{ toolCalls: [{ id: 'l', name: 'lookup_order', arguments: { order_id: 'A-42' } }] }, { text: 'Order A-42 has shipped.' }]);
  const result = await h.client.workflow.execute('orderDesk', {
    taskQueue,
    workflowId: `desk-${Date.now()}`,
    args: [{ prompt: 'Where is order A-42?', model: 'desk', workspace: h.workspace() }],
  });
  expect(lookups).toEqual([{ order_id: 'A-42' }]);
  expect(result).toEqual({ answer: 'Order A-42 has shipped.' });
  // The model was offered the tool with its JSON schema, and read its result.
  const [first, second] = h.model.requestsFor('desk');
  expect(first?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('lookup_order');
  expect(JSON.stringify(second?.body.messages)).toContain('order A-42: shipped');
});

test("bad arguments to a user's tool get the error result a built-in tool's get, and the tool does not run", async () => {
  lookups.length = 0;
  h.model.setScenario('bad-args', [
    {
      toolCalls: [
        { id: 'u', name: 'lookup_order', arguments: { order_id: 42 } },
        { id: 'b', name: 'read_file', arguments: { file_path: 42 } },
      ],
    },
    { text: 'done' },
  ]);
  const handle = await startRun(h.client, { prompt: 'look', model: 'bad-args', workspace: h.workspace() }, { taskQueue, workflowId: `bad-${Date.now()}` });
  await handle.result();
  const [own, builtIn] = toolResults(await handle.query(messagesQuery));
  expect(lookups).toEqual([]);
  expect(own?.is_error).toBe(true);
  expect(own?.content).toContain('lookup_order: order_id:');
  expect(own?.content.replace('lookup_order: order_id', 'X')).toBe(builtIn?.content.replace('read_file: file_path', 'X'));
});

test("a user's `once` tool asks a human in default mode", async () => {
  h.model.setScenario('refund', [{ toolCalls: [{ id: 'r', name: 'refund_order', arguments: { order_id: 'A-42' } }] }, { text: 'refunded' }]);
  const handle = await startRun(h.client, { prompt: 'refund A-42', model: 'refund', workspace: h.workspace(), permissionMode: 'default' }, { taskQueue, workflowId: `refund-${Date.now()}` });
  const pending = await waitFor(async () => {
    const status = await handle.query(statusQuery);
    return status.pendingPermissions.length > 0 ? status.pendingPermissions : undefined;
  }, 'a question about refund_order');
  expect(pending[0]?.tool).toBe('refund_order');
  await handle.terminate('test done');
});
