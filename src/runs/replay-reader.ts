import type { Client } from '@temporalio/client';
import { METADATA_ENCODING_KEY, type QueryDefinition } from '@temporalio/common';
import { coresdk, type temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../codec/data-converter';
import { ENCRYPTED_ENCODING } from '../codec/encryption-codec';
import { payloadConverter } from '../common/payload-converter';
import { cachedWorkflowBundle } from '../worker/cached-bundle';
import { payloadConverterPath } from '../worker/workflow-bundle';
import { tracingSinks } from '../worker/tracing-sinks';
import { completedPrefix } from './completed-history';
import { installQuietRuntime } from './quiet-runtime';

type History = temporal.api.history.v1.IHistory;

/** What the reader needs of the SDK's replayed workflow (its type is not exported). */
interface ReplayedWorkflow {
  activate(activation: coresdk.workflow_activation.IWorkflowActivation): Promise<coresdk.workflow_completion.IWorkflowActivationCompletion>;
}

/** The run has no completed workflow task yet: no worker has ever run its code. */
export class RunNotStartedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** One query a replay answers: its name and arguments. */
export interface ReplayQuery {
  name: string;
  args: unknown[];
}

/**
 * Answers queries from a run's history, in this process: the history is fetched, cut at the end of
 * its last completed workflow task, replayed by a replay worker (which polls no task queue), and
 * the queries are evaluated on the replayed workflow before it is disposed. Nothing is sent to the
 * run's task queue, so no reader can take, fail or delay a workflow task, and no poller is listed.
 */
export async function replayQueries(client: Client, workflowId: string, queries: ReplayQuery[]): Promise<unknown[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const prefix = completedPrefix(history.events ?? []);
  if (!prefix) {
    const { taskQueue } = await client.workflow.getHandle(workflowId).describe();
    throw new RunNotStartedError(
      `Run ${workflowId} has not started: no worker has taken its first task on task queue "${taskQueue}".\n  Start one: BAREAGENT_TASK_QUEUE=${taskQueue} npm run worker  (or: bareagent worker)`,
    );
  }
  refuseUnreadable(prefix, workflowId);
  return replayHistory({ events: prefix }, workflowId, queries);
}

/**
 * An encrypted run read without its key would replay on undecodable input and fail as
 * nondeterministic: say what is missing instead (the CLI turns `binary/encrypted` into its fix).
 */
function refuseUnreadable(events: NonNullable<History['events']>, workflowId: string): void {
  if (dataConverterFromEnv()) return;
  const input = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const encoding = input?.metadata?.[METADATA_ENCODING_KEY];
  if (encoding && Buffer.from(encoding).toString() === ENCRYPTED_ENCODING) {
    throw new Error(`Run ${workflowId} holds binary/encrypted payloads and no BAREAGENT_ENCRYPTION_KEY is set`);
  }
}

/** Typed form of {@link replayQueries} for one query. */
export async function replayQuery<T, A extends unknown[]>(client: Client, workflowId: string, definition: QueryDefinition<T, A>, ...args: A): Promise<T> {
  const [answer] = await replayQueries(client, workflowId, [{ name: definition.name, args }]);
  return answer as T;
}

// The SDK replays one history at a time per worker; readers in one process take turns.
let turn: Promise<unknown> = Promise.resolve();

async function replayHistory(history: History, workflowId: string, queries: ReplayQuery[]): Promise<unknown[]> {
  const mine = turn.then(() => replayOnce(history, workflowId, queries));
  turn = mine.catch(() => undefined);
  return mine;
}

async function replayOnce(history: History, workflowId: string, queries: ReplayQuery[]): Promise<unknown[]> {
  installQuietRuntime();
  const codePath = await cachedWorkflowBundle();
  let answered: Promise<unknown[]> | undefined;
  QueryingReplayWorker.onDispose = (workflow, runId) => (answered = askQueries(workflow, runId, queries));
  try {
    await QueryingReplayWorker.runReplayHistory(
      {
        workflowBundle: { codePath },
        replayName: 'bareagent-reader',
        dataConverter: { ...dataConverterFromEnv(), payloadConverterPath: payloadConverterPath() },
        sinks: tracingSinks(undefined),
      },
      history,
      workflowId,
    );
  } finally {
    QueryingReplayWorker.onDispose = undefined;
  }
  if (!answered) throw new Error(`Replaying ${workflowId} ended before its workflow could be asked`);
  return answered;
}

/**
 * The worker disposes a replayed workflow when the replay ends: just before that, its state is the
 * run's state after its last completed task, and its query handlers answer from it.
 */
class QueryingReplayWorker extends Worker {
  static onDispose: ((workflow: ReplayedWorkflow, runId: string) => Promise<unknown[]>) | undefined;

  protected static override async createWorkflowCreator(...args: Parameters<typeof Worker.createWorkflowCreator>): ReturnType<typeof Worker.createWorkflowCreator> {
    const creator = await super.createWorkflowCreator(...args);
    return {
      destroy: () => creator.destroy(),
      createWorkflow: async (options) => {
        const workflow = await creator.createWorkflow(options);
        const runId = options.info.runId;
        return {
          activate: (activation) => workflow.activate(activation),
          getAndResetSinkCalls: () => workflow.getAndResetSinkCalls(),
          dispose: async () => {
            const onDispose = QueryingReplayWorker.onDispose;
            QueryingReplayWorker.onDispose = undefined;
            // The queries finish before the workflow's context goes away.
            await onDispose?.(workflow, runId).catch(() => undefined);
            await workflow.dispose();
          },
        };
      },
    };
  }
}

async function askQueries(workflow: ReplayedWorkflow, runId: string, queries: ReplayQuery[]): Promise<unknown[]> {
  const jobs = queries.map((query, i): coresdk.workflow_activation.IWorkflowActivationJob => ({
    queryWorkflow: { queryId: `read-${i}`, queryType: query.name, arguments: query.args.map((arg) => payloadConverter.toPayload(arg)), headers: {} },
  }));
  const completion = await workflow.activate(coresdk.workflow_activation.WorkflowActivation.fromObject({ runId, jobs }));
  if (completion.failed) throw new Error(`Reading the replayed run failed: ${completion.failed.failure?.message ?? 'unknown error'}`);
  const answers = new Map((completion.successful?.commands ?? []).map((command) => [command.respondToQuery?.queryId, command.respondToQuery]));
  return queries.map((query, i) => {
    const answer = answers.get(`read-${i}`);
    if (answer?.failed) throw new Error(answer.failed.message ?? `query ${query.name} failed`);
    const payload = answer?.succeeded?.response;
    if (!payload) throw new Error(`query ${query.name} had no answer`);
    return payloadConverter.fromPayload(payload);
  });
}
