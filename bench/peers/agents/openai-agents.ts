/**
 * Temporal's OpenAI Agents plugin (@temporalio/openai-agents): the OpenAI Agents SDK's run loop in
 * the workflow, each model call an activity, the tool an activity (activityAsTool). The provider
 * speaks Chat Completions to the scripted model. History on the same Temporal dev server as BareAgent's.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { OpenAIProvider } from '@openai/agents-openai';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { PROMPT, peerEnv, readWorkspaceFile } from '../task';
import { runOnTemporal } from '../temporal-peer';

const TASK_QUEUE = 'peers-openai-agents';

/** The activity behind the read_file tool: the tool's arguments as one object. */
export async function readFileActivity(args: { file_path: string }): Promise<string> {
  return readWorkspaceFile(peerEnv().workspace, args.file_path);
}

async function main(): Promise<void> {
  const env = peerEnv();
  // The model call in flight on a killed worker is retried after this timeout (the README's value).
  const plugin = new OpenAIAgentsPlugin({
    modelProvider: new OpenAIProvider({ baseURL: env.modelUrl, apiKey: 'scripted', useResponses: false }),
    modelParams: { startToCloseTimeout: '30s' },
  });
  const native = await NativeConnection.connect({ address: env.temporalAddress });
  const connection = await Connection.connect({ address: env.temporalAddress });
  const client = new Client({ connection, plugins: [plugin] });
  const worker = await Worker.create({
    connection: native,
    taskQueue: TASK_QUEUE,
    identity: `peers-openai-agents-${randomUUID().slice(0, 6)}`,
    workflowsPath: path.join(__dirname, '../workflows/openai-agents.ts'),
    activities: { read_file: readFileActivity },
    plugins: [plugin],
    // The agents SDK imports a module dynamically: webpack makes it a chunk loaded through `self`
    // and an automatic publicPath, neither of which the workflow sandbox has. One bundle instead.
    bundlerOptions: { webpackConfigHook: (config) => ({ ...config, output: { ...config.output, publicPath: '', asyncChunks: false } }) },
  });
  const running = worker.run();
  await runOnTemporal({ getHandle: (runId) => client.workflow.getHandle(runId), worker, running, connections: [connection, native] }, (runId) => client.workflow.start('openAiAgentsAgent', { taskQueue: TASK_QUEUE, workflowId: runId, args: [runId, PROMPT] }));
}

void main();
