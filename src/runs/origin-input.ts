import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { WORKFLOW_TYPE } from '../connection/config';
import type { AgentRunInput } from '../common/input';
import { UsageError } from './usage-error';

export interface Origin {
  workflowId: string;
  /** The execution status of the chain's latest run: RUNNING, COMPLETED, FAILED, CANCELLED, ... */
  status: string;
  /** What the origin was started with, minus what belongs to that run alone. */
  input: Omit<AgentRunInput, 'prompt'>;
}

/**
 * The input the origin's first run was started with, read from its WorkflowExecutionStarted event
 * (decoded with this client's data converter, so encrypted payloads too), for a fork to inherit.
 */
export async function readOrigin(client: Client, workflowId: string): Promise<Origin> {
  const description = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) throw new UsageError(`No run with workflow id "${workflowId}" in namespace ${client.options.namespace}.`);
      throw err;
    });
  if (description.type !== WORKFLOW_TYPE) throw new UsageError(`"${workflowId}" is a ${description.type} workflow, not an ${WORKFLOW_TYPE} run.`);
  const started = await readStartInput(client, workflowId, description.raw.workflowExecutionInfo?.firstRunId || description.runId);
  if (!started || typeof started !== 'object') throw new UsageError(`Run "${workflowId}" was started without an input object: nothing to inherit.`);
  // prompt is the fork's own; resume and forkFrom belong to the origin's own start; parent: a fork is nobody's subagent.
  const { prompt: _prompt, resume: _resume, forkFrom: _forkFrom, parent: _parent, ...inherited } = started as AgentRunInput;
  return { workflowId, status: description.status.name, input: inherited };
}

/**
 * What a run's first run was started with, read from its WorkflowExecutionStarted event (decoded
 * with this client's data converter, so encrypted payloads too). Only the first event: a long
 * run's whole history is megabytes.
 */
export async function readStartInput(client: Client, workflowId: string, firstRunId: string): Promise<unknown> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId: firstRunId },
    maximumPageSize: 1,
  });
  const payloads = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  const [started] = await decode(client, payloads as Payload[]);
  return started;
}

async function decode(client: Client, payloads: Payload[]): Promise<unknown[]> {
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let decoded = payloads;
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return decoded.map((payload) => payloadConverter.fromPayload(payload));
}
