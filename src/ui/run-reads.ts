import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { eventsQuery, statusQuery, stepsQuery } from '../common/contract';
import type { RunEvent } from '../common/events';
import type { RunStatus, StepRecord } from '../common/wire';
import { readStartInput } from '../cli/origin-input';
import { queryRun, queryRunMany } from '../cli/query-run';
import type { Question } from './answer-forms';

export interface InboxItem extends Question {
  workflowId: string;
  requestedAt: string;
  deadline: string;
  prompt: string;
}

/** A run's prompt, from its first run's start event (decoded, so an encrypted run's too). */
export async function runPrompt(client: Client, description: WorkflowExecutionDescription): Promise<string> {
  const input = await readStartInput(client, description.workflowId, description.raw.workflowExecutionInfo?.firstRunId || description.runId).catch(() => undefined);
  const prompt = (input as { prompt?: unknown } | undefined)?.prompt;
  return typeof prompt === 'string' ? prompt : '';
}

/**
 * Every question open in the namespace, oldest first: the runs the search attribute marks as
 * waiting for a human, each asked for its status (a subagent's question shows in its parent
 * too: one entry per request).
 */
export async function waitingQuestions(client: Client): Promise<InboxItem[]> {
  const runs: WorkflowExecutionDescription[] = [];
  for await (const run of client.workflow.list({ query: `BareAgentWaitingForHuman = true AND ExecutionStatus = 'Running'` })) {
    runs.push(await client.workflow.getHandle(run.workflowId).describe());
  }
  const perRun = await Promise.all(
    runs.map(async (description) => {
      const [status, prompt] = await Promise.all([
        queryRun(client, description.workflowId, statusQuery).catch(() => undefined),
        runPrompt(client, description),
      ]);
      return (status?.pendingPermissions ?? []).map((p): InboxItem => ({
        workflowId: description.workflowId,
        requestId: p.requestId,
        tool: p.tool,
        input: p.input,
        requestedAt: p.requestedAt,
        deadline: p.deadline,
        prompt,
        ...(p.workflowId && p.workflowId !== description.workflowId ? { answerIn: p.workflowId } : {}),
      }));
    }),
  );
  const seen = new Set<string>();
  return perRun
    .flat()
    .filter((item) => {
      const key = `${item.answerIn ?? item.workflowId}\u0000${item.requestId}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => Date.parse(a.requestedAt) - Date.parse(b.requestedAt));
}

export interface RunView {
  workflowId: string;
  /** The execution status: RUNNING, COMPLETED, FAILED, ... */
  execution: string;
  prompt: string;
  startTime: Date;
  status?: RunStatus;
  steps: StepRecord[];
  events: Array<{ offset: number; event: RunEvent }>;
  /** The offset the live stream goes on from. */
  nextOffset: number;
  /** A query the run could not answer (no worker, an older version): shown, not thrown. */
  problems: string[];
}

export async function readRun(client: Client, workflowId: string): Promise<RunView> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const problems: string[] = [];
  const ask = <T>(what: string, read: () => Promise<T>) =>
    read().catch((err: Error) => {
      problems.push(`${what}: ${err.message}`);
      return undefined;
    });
  // One read (one replay when no live worker answers) for all three; one by one when that fails,
  // so that the queries the run can answer still show.
  const together = await queryRunMany(client, workflowId, [
    { name: statusQuery.name, args: [] },
    { name: stepsQuery.name, args: [] },
    { name: eventsQuery.name, args: [0] },
  ]).catch(() => undefined);
  const [status, steps = [], events = []] = together
    ? (together as [RunStatus, StepRecord[], Array<{ offset: number; event: RunEvent }>])
    : [
        await ask('status', () => queryRun(client, workflowId, statusQuery)),
        await ask('steps', () => queryRun(client, workflowId, stepsQuery)),
        await ask('events', () => queryRun(client, workflowId, eventsQuery, 0)),
      ];
  return {
    workflowId,
    execution: description.status.name,
    prompt: await runPrompt(client, description),
    startTime: description.startTime,
    ...(status ? { status } : {}),
    steps,
    events,
    nextOffset: (events.at(-1)?.offset ?? -1) + 1,
    problems,
  };
}
