import { checkpointsQuery, messagesQuery, stepsQuery } from '../common/contract';
import { checkpointAt } from '../common/checkpoint';
import { Context } from '@temporalio/activity';
import { QueryNotRegisteredError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type QueryDefinition } from '@temporalio/common';
import { WORKFLOW_TYPE } from '../connection/config';
import { FailureType } from '../common/failures';
import type { ForkStart } from '../common/fork';
import type { ForkFrom } from '../common/input';
import { forkPoint } from '../loop/fork-point';
import { authoriseFork, type ForkPlace } from './fork-authorisation';

/** A query on a closed run waits for a worker on its task queue to replay it: usually this one, in well under a second. */
const QUERY_DEADLINE_MS = 20_000;

/**
 * Reads the origin's conversation (its `messages` and `steps` queries, answered for closed runs
 * too by any worker on its task queue) and cuts it at the asked step. Its result is recorded in
 * the fork's history: a replay of the fork never asks the origin again. First it checks that this
 * run may read the origin at all (authoriseFork): `fork` is the run's own workspace; runs recorded
 * before the check sent none, and are not checked again on a retry.
 */
export async function loadForkOrigin(forkFrom: ForkFrom, fork?: ForkPlace): Promise<ForkStart> {
  const context = Context.current();
  const client = context.client;
  const { workflowId, runId } = forkFrom;
  const description = await client.workflow
    .getHandle(workflowId, runId)
    .describe()
    .catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) {
        throw invalid(runId ? `forkFrom.runId: the origin has no run ${runId} (workflow ${workflowId})` : `forkFrom.workflowId: no run with workflow id "${workflowId}"`);
      }
      throw err;
    });
  if (description.type !== WORKFLOW_TYPE) throw invalid(`forkFrom.workflowId: "${workflowId}" is a ${description.type} workflow, not an ${WORKFLOW_TYPE} run`);
  let authorised: string | undefined;
  if (fork) {
    const firstRunId = description.raw.workflowExecutionInfo?.firstRunId || description.runId;
    const self = context.info.workflowExecution;
    if (!self) throw invalid('forkFrom: a fork is read by its own run only');
    authorised = await authoriseFork(client, { workflowId, runId: firstRunId }, self, fork);
  }
  // Pinned to the run just described: an open origin that continues as new meanwhile must not mix two runs.
  const handle = client.workflow.getHandle(workflowId, description.runId);
  const [messages, steps] = await Promise.all([
    query(client, handle, messagesQuery, description.taskQueue),
    query(client, handle, stepsQuery, description.taskQueue),
  ]);
  const point = forkPoint(messages, steps, forkFrom.step);
  if (!point.ok) throw invalid(`forkFrom${point.message.startsWith('step') ? '.step' : ''}: ${point.message} (origin ${workflowId})`);
  const origin = { workflowId, runId: description.runId, step: point.step, };
  const where = authorised ? { workspace: authorised } : {};
  if (!forkFrom.restoreFiles) return { origin, messages: point.messages, closedToolCalls: point.closedToolCalls, ...where };
  const view = await query(client, handle, checkpointsQuery, description.taskQueue);
  if (view.pending) throw invalid(`forkFrom.restoreFiles: the origin ${workflowId} has not changed the workspace (no round of it could write), so it keeps no snapshot to restore: fork without restoreFiles`);
  const found = checkpointAt(view, point.step);
  if (!view.store || !found) throw invalid(`forkFrom.restoreFiles: the origin ${workflowId} has no checkpoint at or before step ${point.step}${view.error ? ` (${view.error})` : ''}`);
  // Only the newest snapshot's left-out list is kept: an earlier step's is not known here.
  const leftOut = view.leftOut && found === view.steps.at(-1) ? { leftOut: view.leftOut } : {};
  return { origin, messages: point.messages, closedToolCalls: point.closedToolCalls, checkpoint: { store: view.store, id: found.id, step: found.step, ...leftOut }, ...where };
}

async function query<T>(client: Client, handle: WorkflowHandle, definition: QueryDefinition<T, []>, taskQueue: string): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(definition));
  } catch (err) {
    // The origin failed before its loop started (bad input): it never had a conversation.
    if (err instanceof QueryNotRegisteredError) throw invalid(`forkFrom.workflowId: run "${handle.workflowId}" has no conversation (it ended before its first turn)`);
    if (/deadline/i.test(String((err as Error).message))) {
      throw ApplicationFailure.create({
        type: 'OriginUnreadable',
        message: `no worker answered the "${definition.name}" query of ${handle.workflowId} within ${QUERY_DEADLINE_MS / 1000} s: is a worker polling its task queue "${taskQueue}"?`,
      });
    }
    throw err;
  }
}

function invalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}
