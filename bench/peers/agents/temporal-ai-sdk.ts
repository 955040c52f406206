/**
 * Temporal's AI SDK plugin (@temporalio/ai-sdk): the workflow runs the AI SDK's generateText; the
 * plugin turns each model call into an activity, the tool is an activity of our own. History on
 * the same Temporal dev server as BareAgent's.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { PROMPT, peerEnv, readWorkspaceFile } from '../task';
import { runOnTemporal } from '../temporal-peer';

const TASK_QUEUE = 'peers-ai-sdk';

export async function readFileActivity(filePath: string): Promise<string> {
  return readWorkspaceFile(peerEnv().workspace, filePath);
}

async function main(): Promise<void> {
  const env = peerEnv();
  const native = await NativeConnection.connect({ address: env.temporalAddress });
  const connection = await Connection.connect({ address: env.temporalAddress });
  const client = new Client({ connection });
  const worker = await Worker.create({
    connection: native,
    taskQueue: TASK_QUEUE,
    identity: `peers-ai-sdk-${randomUUID().slice(0, 6)}`,
    workflowsPath: path.join(__dirname, '../workflows/ai-sdk.ts'),
    activities: { readFile: readFileActivity },
    plugins: [new AiSdkPlugin({ modelProvider: createOpenAICompatible({ name: 'scripted', baseURL: env.modelUrl, apiKey: 'scripted' }) })],
  });
  const running = worker.run();
  await runOnTemporal({ getHandle: (runId) => client.workflow.getHandle(runId), worker, running, connections: [connection, native] }, (runId) => client.workflow.start('aiSdkAgent', { taskQueue: TASK_QUEUE, workflowId: runId, args: [runId, PROMPT] }));
}

void main();
