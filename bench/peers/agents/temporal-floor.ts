/**
 * Not a peer: the floor of any agent on Temporal (workflows/temporal-floor.ts), on a worker with
 * the SDK and settings BareAgent's worker uses, against the same dev server. The model is asked
 * with plain fetch (no streaming); the tool call's file is read in the same activity, and the
 * conversation so far is kept in the worker (asked of the workflow after a restart). A killed
 * worker's turn is retried once its start-to-close timeout passes (20 s, as the AI SDK peer).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROMPT, SYSTEM, TOOL_DESCRIPTION, peerEnv, readWorkspaceFile } from '../task';
import { runOnTemporal } from '../temporal-peer';
import type { FloorMessage, FloorTurn } from '../workflows/temporal-floor';

const TASK_QUEUE = 'peers-temporal-floor';

// The root's own @temporalio packages, as BareAgent's peer uses them.
const rootRequire = createRequire(path.resolve(__dirname, '../../../package.json'));
const { Client, Connection } = rootRequire('@temporalio/client') as typeof import('@temporalio/client');
const { NativeConnection, Worker } = rootRequire('@temporalio/worker') as typeof import('@temporalio/worker');

const TOOLS = [{ type: 'function', function: { name: 'read_file', description: TOOL_DESCRIPTION, parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } } }];

const { Context } = rootRequire('@temporalio/activity') as typeof import('@temporalio/activity');

/** The conversations this worker has sent, by run. */
const cache = new Map<string, FloorMessage[]>();

async function conversationStart(runId: string, from: number): Promise<FloorMessage[]> {
  const known = cache.get(runId) ?? [];
  if (known.length === from) return known;
  const execution = Context.current().info.workflowExecution;
  if (!execution) throw new Error('floorTurn runs only as its workflow\'s activity');
  return (await Context.current().client.workflow.getHandle(execution.workflowId, execution.runId).query<FloorMessage[]>('floorMessages')).slice(0, from);
}

async function floorTurn(runId: string, newMessages: FloorMessage[], from: number): Promise<FloorTurn> {
  const env = peerEnv();
  const messages = [...(await conversationStart(runId, from)), ...newMessages];
  const res = await fetch(`${env.modelUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: runId, messages, tools: TOOLS }) });
  if (!res.ok) throw new Error(`model: ${res.status} ${await res.text()}`);
  const reply = ((await res.json()) as { choices: Array<{ message: FloorMessage }> }).choices[0]!.message;
  const call = reply.tool_calls?.[0];
  if (!call) return { reply };
  messages.push(reply);
  const { file_path } = JSON.parse(call.function.arguments) as { file_path: string };
  const read: FloorMessage = { role: 'tool', tool_call_id: call.id, content: readWorkspaceFile(env.workspace, file_path) };
  messages.push(read);
  cache.set(runId, messages);
  return { reply, read };
}

async function main(): Promise<void> {
  const env = peerEnv();
  const native = await NativeConnection.connect({ address: env.temporalAddress });
  const connection = await Connection.connect({ address: env.temporalAddress });
  const client = new Client({ connection });
  const worker = await Worker.create({
    connection: native,
    taskQueue: TASK_QUEUE,
    workflowsPath: path.join(__dirname, '../workflows/temporal-floor.ts'),
    activities: { floorTurn },
  });
  const running = worker.run();
  await runOnTemporal({ getHandle: (runId) => client.workflow.getHandle(runId), worker, running, connections: [connection, native] }, (runId) => client.workflow.start('temporalFloor', { taskQueue: TASK_QUEUE, workflowId: runId, args: [runId, SYSTEM, PROMPT] }));
}

void main();
