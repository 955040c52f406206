/** Starting scripted `agentRun` runs on the bench's server and waiting for them. */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentRunInput } from '../src/common/input';
import type { AgentRunResult } from '../src/common/wire';
import type { ScriptedModelServer } from '../src/testing/scripted-model-server';
import { iterationLatencies, scriptConversation, type Conversation, type ScriptedCall, type Workspace } from './conversation';
import type { BenchServer } from './setup';

export interface ScriptedRun {
  handle: WorkflowHandle;
  conversation: Conversation;
  result?: AgentRunResult;
  /** Wall time from start() to the result, ms. */
  wallMs: number;
}

export interface RunSpec {
  iterations: number;
  workspace: Workspace;
  taskQueue: string;
  /** More agentRun input: stream, compaction, permissionMode... */
  input?: Partial<AgentRunInput>;
  prefix?: string;
  /** The tool call of each turn (default: read_file of the next file). */
  call?: ScriptedCall;
}

/** One scripted run from start to result (a failed run rejects: a bench must not average failures). */
export async function runScripted(server: BenchServer, model: ScriptedModelServer, spec: RunSpec): Promise<ScriptedRun> {
  const started = await startScripted(server, model, spec);
  const result = (await started.handle.result()) as AgentRunResult;
  const wallMs = performance.now() - started.startedAt;
  if (result.iterations !== spec.iterations + 1) {
    throw new Error(`${started.handle.workflowId}: ${result.iterations} iterations, expected ${spec.iterations + 1}`);
  }
  return { handle: started.handle, conversation: started.conversation, result, wallMs };
}

export async function startScripted(server: BenchServer, model: ScriptedModelServer, spec: RunSpec) {
  const id = `${spec.prefix ?? 'bench'}-${randomUUID().slice(0, 8)}`;
  const conversation = scriptConversation(model, id, spec.iterations, spec.workspace.files, spec.call);
  const startedAt = performance.now();
  const input: AgentRunInput = {
    prompt: 'Read the files one by one.',
    model: id,
    workspace: spec.workspace.dir,
    maxIterations: spec.iterations + 10,
    ...spec.input,
  };
  const handle = await server.client.workflow.start('agentRun', { taskQueue: spec.taskQueue, workflowId: id, args: [input] });
  return { handle, conversation, startedAt };
}

export function latenciesOf(runs: readonly ScriptedRun[]): number[] {
  return runs.flatMap((run) => iterationLatencies(run.conversation));
}

/** The scripted model keeps every request body: drop them between measurements (memory). */
export function forgetRequests(model: ScriptedModelServer): void {
  model.requests.length = 0;
}
