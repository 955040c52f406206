import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { CheckpointsView } from '../common/checkpoint';
import { checkpointsQuery, eventsQuery, statusQuery, stepsQuery } from '../common/contract';
import type { RunEvent } from '../common/events';
import type { RunStatus, StepRecord } from '../common/wire';
import type { ModelPrice } from '../loop/budget';
import { readStartInput } from '../runs/origin-input';
import { queryRun, queryRunMany } from '../runs/query-run';
import type { Question } from './answer-forms';
import { textsBeforeQuestions } from './conversation';
import type { QuestionContext, RunFacts } from './run-context-html';
import { runDiff, type DiffView } from './run-diff';

export interface InboxItem extends Question {
  workflowId: string;
  requestedAt: string;
  deadline: string;
  prompt: string;
  context: QuestionContext;
}

/** What a run was started with, as the page shows it: from its first run's start event (decoded, so an encrypted run's too). */
export interface StartFacts {
  prompt: string;
  workspace?: string;
  model?: string;
  provider?: string;
  permissionMode?: string;
  prices?: Record<string, ModelPrice>;
}

export async function runStart(client: Client, description: WorkflowExecutionDescription): Promise<StartFacts> {
  const input = (await readStartInput(client, description.workflowId, description.raw.workflowExecutionInfo?.firstRunId || description.runId).catch(() => undefined)) as Record<string, unknown> | undefined;
  const text = (key: string) => (typeof input?.[key] === 'string' && input[key] !== '' ? { [key]: input[key] as string } : {});
  const prices = input?.prices && typeof input.prices === 'object' ? { prices: input.prices as Record<string, ModelPrice> } : {};
  return { prompt: typeof input?.prompt === 'string' ? input.prompt : '', ...text('workspace'), ...text('model'), ...text('provider'), ...text('permissionMode'), ...prices };
}

/** A run's prompt, from its first run's start event. */
export async function runPrompt(client: Client, description: WorkflowExecutionDescription): Promise<string> {
  return (await runStart(client, description)).prompt;
}

/** Where the run runs: the workspace its worker resolved (else the one it was given), its sandbox, its model and provider (the one that served it, else the one it was given). */
export function runFacts(start: StartFacts, status: RunStatus | undefined, checkpoints: CheckpointsView | undefined): RunFacts {
  const workspace = checkpoints?.workspace ?? start.workspace;
  return {
    ...(workspace ? { workspace } : {}),
    model: status?.model ?? start.model ?? null,
    provider: status?.provider ?? start.provider ?? null,
    ...(start.permissionMode ? { permissionMode: start.permissionMode } : {}),
    ...(status?.sandbox ? { sandbox: status.sandbox } : {}),
  };
}

/**
 * Every question open in the namespace, oldest first: the runs the search attribute marks as
 * waiting for a human, each read like its page (status, events, checkpoints: one replay when no
 * live worker answers), each question with its context (a subagent's question shows in its
 * parent too: one entry per request).
 */
export async function waitingQuestions(client: Client): Promise<InboxItem[]> {
  const ids: string[] = [];
  for await (const run of client.workflow.list({ query: `BareAgentWaitingForHuman = true AND ExecutionStatus = 'Running'` })) ids.push(run.workflowId);
  const perRun = await Promise.all(
    ids.map(async (workflowId) => {
      const run = await readRun(client, workflowId).catch(() => undefined);
      if (!run) return [];
      const said = textsBeforeQuestions(run.events.map((e) => e.event));
      return (run.status?.pendingPermissions ?? []).map((p): InboxItem => ({
        workflowId,
        requestId: p.requestId,
        tool: p.tool,
        input: p.input,
        requestedAt: p.requestedAt,
        deadline: p.deadline,
        prompt: run.prompt,
        context: { workflowId, facts: run.facts, diff: run.diff, ...(said.before(p.requestId) ? { said: said.before(p.requestId) as string } : {}) },
        ...(p.workflowId && p.workflowId !== workflowId ? { answerIn: p.workflowId } : {}),
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
  start: StartFacts;
  facts: RunFacts;
  startTime: Date;
  status?: RunStatus;
  checkpoints?: CheckpointsView;
  /** The workspace's changes since the run started. */
  diff: DiffView;
  /** Each recent step's own changes, by step. */
  stepDiffs: Map<number, DiffView>;
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
  const [together, start] = await Promise.all([
    queryRunMany(client, workflowId, [
      { name: statusQuery.name, args: [] },
      { name: stepsQuery.name, args: [] },
      { name: eventsQuery.name, args: [0] },
      { name: checkpointsQuery.name, args: [] },
    ]).catch(() => undefined),
    runStart(client, description),
  ]);
  const [status, steps = [], events = [], checkpoints] = together
    ? (together as [RunStatus, StepRecord[], Array<{ offset: number; event: RunEvent }>, CheckpointsView])
    : [
        await ask('status', () => queryRun(client, workflowId, statusQuery)),
        await ask('steps', () => queryRun(client, workflowId, stepsQuery)),
        await ask('events', () => queryRun(client, workflowId, eventsQuery, 0)),
        // A run of a worker older than checkpoints has no such query: no diff, no problem shown.
        await queryRun(client, workflowId, checkpointsQuery).catch(() => undefined),
      ];
  const [diff, stepDiffs] = await Promise.all([runDiff(checkpoints), stepChanges(checkpoints, steps)]);
  return {
    workflowId,
    execution: description.status.name,
    prompt: start.prompt,
    start,
    facts: runFacts(start, status, checkpoints),
    startTime: description.startTime,
    ...(status ? { status } : {}),
    ...(checkpoints ? { checkpoints } : {}),
    diff,
    stepDiffs,
    steps,
    events,
    nextOffset: (events.at(-1)?.offset ?? -1) + 1,
    problems,
  };
}

/** How many of the newest steps get their own diff on the page (each one git call); older ones name the command. */
export const STEP_DIFFS = 30;

async function stepChanges(checkpoints: CheckpointsView | undefined, steps: StepRecord[]): Promise<Map<number, DiffView>> {
  const changed = steps.filter((s) => s.checkpoint && 'id' in s.checkpoint && s.checkpoint.changed > 0).slice(-STEP_DIFFS);
  if (!checkpoints?.store) return new Map();
  const diffs = await Promise.all(changed.map(async (s) => [s.step_id, await runDiff(checkpoints, s.step_id - 1, s.step_id)] as const));
  return new Map(diffs);
}
