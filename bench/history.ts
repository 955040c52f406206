/**
 * Reading a run's history: events and bytes per run of a continue-as-new chain, where the bytes
 * go (by kind of event), and where the time of an iteration goes (task latencies).
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { percentile } from './stats';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = temporal.api.enums.v1.EventType;

export interface RunHistory {
  runId: string;
  events: number;
  /** The server's own figure (describe: historySizeBytes). */
  bytes: number;
  /** Encoded bytes by kind of event (see `kindOf`). */
  byKind: Record<string, number>;
  continuedAsNewTo?: string;
  /** Model-call inputs that carried the whole conversation (no transcript reference, or from 0), and their bytes. */
  wholeTranscriptCalls: number;
  wholeTranscriptBytes: number;
  /** JSON characters of each field of the state carried into the next run (continue-as-new input). */
  carried?: Record<string, number>;
}

export async function fetchEvents(client: Client, workflowId: string, runId?: string): Promise<HistoryEvent[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

/** Every run of a chain, from `firstRunId` through its continue-as-new successors. */
export async function historyChain(client: Client, workflowId: string, firstRunId: string, maxRuns = 1000): Promise<RunHistory[]> {
  const runs: RunHistory[] = [];
  for (let runId: string | undefined = firstRunId; runId && runs.length < maxRuns; ) {
    const description = await client.workflow.getHandle(workflowId, runId).describe();
    const events = await fetchEvents(client, workflowId, runId);
    const last = events.at(-1);
    const next = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    const carried = carriedState(last);
    runs.push({
      runId,
      events: description.historyLength,
      bytes: description.historySize ?? NaN,
      byKind: bytesByKind(events),
      ...wholeTranscriptCalls(events),
      ...(next ? { continuedAsNewTo: next } : {}),
      ...(carried ? { carried } : {}),
    });
    runId = next;
  }
  return runs;
}

/** The first payload of a list as JSON, when it is plain JSON (not encrypted). */
function firstPayloadJson(payloads: temporal.api.common.v1.IPayloads | null | undefined): unknown {
  const data = payloads?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    return JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return undefined;
  }
}

function wholeTranscriptCalls(events: readonly HistoryEvent[]): { wholeTranscriptCalls: number; wholeTranscriptBytes: number } {
  let calls = 0;
  let size = 0;
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'callModel') continue;
    const request = firstPayloadJson(scheduled.input) as { transcript?: { from: number } } | undefined;
    if (request && (!request.transcript || request.transcript.from === 0)) {
      calls += 1;
      size += temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
    }
  }
  return { wholeTranscriptCalls: calls, wholeTranscriptBytes: size };
}

function carriedState(last: HistoryEvent | undefined): Record<string, number> | undefined {
  const input = firstPayloadJson(last?.workflowExecutionContinuedAsNewEventAttributes?.input) as { resume?: Record<string, unknown> } | undefined;
  if (!input?.resume) return undefined;
  return Object.fromEntries(Object.entries(input.resume).map(([key, value]) => [key, JSON.stringify(value)?.length ?? 0]));
}

export const KINDS = ['model-call inputs', 'model-call results', 'tool inputs', 'tool results', 'run input / carried state', 'signals and updates', 'workflow tasks', 'other'] as const;

export function bytesByKind(events: readonly HistoryEvent[]): Record<string, number> {
  const activityTypes = new Map<string, string>();
  const totals: Record<string, number> = Object.fromEntries(KINDS.map((kind) => [kind, 0]));
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) activityTypes.set(String(event.eventId), scheduled.activityType?.name ?? '');
    const kind = kindOf(event, activityTypes);
    totals[kind] = (totals[kind] ?? 0) + temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
  }
  return totals;
}

function kindOf(event: HistoryEvent, activityTypes: Map<string, string>): (typeof KINDS)[number] {
  const isModel = (scheduledId: unknown) => activityTypes.get(String(scheduledId)) === 'callModel';
  switch (event.eventType) {
    case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
      return event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? 'model-call inputs' : 'tool inputs';
    case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
      return isModel(event.activityTaskCompletedEventAttributes?.scheduledEventId) ? 'model-call results' : 'tool results';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
      return 'run input / carried state';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
      return 'signals and updates';
    case EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
    case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
    case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
      return 'workflow tasks';
    default:
      return 'other';
  }
}

const timeOf = (event: HistoryEvent): number => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

export interface TimeBreakdown {
  /** Medians in ms. */
  workflowTaskScheduleToStart: number;
  workflowTaskStartToComplete: number;
  workflowTasksPerIteration: number;
  activityScheduleToStart: number;
  modelCallStartToClose: number;
  toolStartToClose: number;
}

/** Where an iteration's time goes, from the server's event times (medians over the run). */
export function timeBreakdown(events: readonly HistoryEvent[], iterations: number): TimeBreakdown {
  const byId = new Map(events.map((e) => [String(e.eventId), e]));
  const wftS2S: number[] = [];
  const wftRun: number[] = [];
  const actS2S: number[] = [];
  const model: number[] = [];
  const tool: number[] = [];
  for (const event of events) {
    const started = event.workflowTaskStartedEventAttributes;
    if (started) {
      const scheduled = byId.get(String(started.scheduledEventId ?? Number(event.eventId) - 1)) ?? byId.get(String(Number(event.eventId) - 1));
      if (scheduled) wftS2S.push(timeOf(event) - timeOf(scheduled));
    }
    const completed = event.workflowTaskCompletedEventAttributes;
    if (completed) {
      const start = byId.get(String(completed.startedEventId));
      if (start) wftRun.push(timeOf(event) - timeOf(start));
    }
    const actStarted = event.activityTaskStartedEventAttributes;
    if (actStarted) {
      const scheduled = byId.get(String(actStarted.scheduledEventId));
      if (scheduled) actS2S.push(timeOf(event) - timeOf(scheduled));
    }
    const actDone = event.activityTaskCompletedEventAttributes;
    if (actDone) {
      const start = byId.get(String(actDone.startedEventId));
      const scheduled = byId.get(String(actDone.scheduledEventId));
      if (start && scheduled) (scheduled.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? model : tool).push(timeOf(event) - timeOf(start));
    }
  }
  return {
    workflowTaskScheduleToStart: percentile(wftS2S, 50),
    workflowTaskStartToComplete: percentile(wftRun, 50),
    workflowTasksPerIteration: wftRun.length / Math.max(1, iterations),
    activityScheduleToStart: percentile(actS2S, 50),
    modelCallStartToClose: percentile(model, 50),
    toolStartToClose: percentile(tool, 50),
  };
}
