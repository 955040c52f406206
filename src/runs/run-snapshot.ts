import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { eventsQuery, statusQuery } from '../common/contract';
import type { RunEvent } from '../common/events';
import type { RunStatus } from '../common/wire';
import { inputDigest } from '../loop/input-digest';
import { queryRunMany } from './query-run';
import type { ReplayQuery } from './replay-reader';

/** A question as a client of another protocol answers it: the run's own request id and the digest of what it asks. */
export interface OpenQuestion {
  requestId: string;
  /** Set when a subagent asks: its answer goes to that workflow. */
  workflowId?: string;
  tool: string;
  input: unknown;
  deadline: string;
  inputDigest: string;
}

export interface RunSnapshot {
  /** The workflow's own status: RUNNING, COMPLETED, FAILED, CANCELED, TERMINATED, TIMED_OUT, CONTINUED_AS_NEW. */
  workflowStatus: string;
  status: RunStatus;
  questions: OpenQuestion[];
  events: Array<{ offset: number } & RunEvent>;
  /** Where the next read starts: the offset after the last event returned. */
  nextOffset: number;
  /** More events wait after `nextOffset`. */
  more: boolean;
}

/**
 * A run's status, its open questions and up to `limit` events from `fromOffset`, open or closed,
 * in one read (one replay when no live worker answers).
 */
export async function runSnapshot(client: Client, workflowId: string, fromOffset: number, limit: number): Promise<RunSnapshot> {
  const { description, answers } = await readRun(client, workflowId, [
    { name: statusQuery.name, args: [] },
    { name: eventsQuery.name, args: [fromOffset] },
  ]);
  const [status, events] = answers as [RunStatus, Array<{ offset: number; event: RunEvent }>];
  const page = events.filter((item) => item.offset >= fromOffset).slice(0, limit);
  const last = page.at(-1);
  return {
    workflowStatus: description.status.name,
    status,
    questions: openQuestions(status),
    events: page.map((item) => ({ offset: item.offset, ...item.event })),
    nextOffset: last ? last.offset + 1 : fromOffset,
    more: events.length > page.length,
  };
}

/**
 * An open run's worker answers within its current workflow task: at a run's start that task holds
 * the run-start reads, seconds on a busy machine. queryRun gives a live worker one second before
 * it replays the history here, which costs far more the first time (the worker SDK loads).
 */
const OPEN_RUN_QUERY_MS = 10_000;

/** Queries of a run, open (its worker answers, in order, else a replay) or closed (a replay), with its description. */
export async function readRun(client: Client, workflowId: string, queries: ReplayQuery[]): Promise<{ description: WorkflowExecutionDescription; answers: unknown[] }> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const answers =
    description.status.name === 'RUNNING'
      ? await client
          .withDeadline(Date.now() + OPEN_RUN_QUERY_MS, () => inOrder(queries, (query) => handle.query(query.name, ...query.args)))
          .catch(() => queryRunMany(client, workflowId, queries))
      : await queryRunMany(client, workflowId, queries);
  return { description, answers };
}

/**
 * One query after the other, in the order given: a worker answers each at its own moment, and a
 * later query sees at least what an earlier one saw (the status's questions are in the events read after it).
 */
async function inOrder(queries: ReplayQuery[], ask: (query: ReplayQuery) => Promise<unknown>): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const query of queries) answers.push(await ask(query));
  return answers;
}

export function openQuestions(status: RunStatus): OpenQuestion[] {
  return status.pendingPermissions.map((p) => ({
    requestId: p.requestId,
    ...(p.workflowId ? { workflowId: p.workflowId } : {}),
    tool: p.tool,
    input: p.input,
    deadline: p.deadline,
    inputDigest: inputDigest(p.tool, p.input),
  }));
}
