import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import path from 'node:path';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { eventsQuery, statusQuery, userMessageSignal } from '../common/contract';
import type { RunStatus } from '../common/wire';
import { sendDecision } from '../runs/decisions';
import { runEventFeed, type OffsetEvent } from '../runs/run-event-feed';
import { openQuestions, readRun } from '../runs/run-snapshot';
import { UsageError } from '../runs/usage-error';
import { FrameMaker, framesAfter, parsePosition, type Position } from './event-frames';

/** Starts a run after the same checks as `bareagent run` (given by the command that serves the page). */
export type StartRun = (prompt: string, options: { workflowId: string; workspace: string; model?: string; mode?: string }) => Promise<void>;

export interface AgUiOptions {
  client: Client;
  startRun: StartRun;
  /** The Host values this server answers to: an Origin, when sent, must name one of them. */
  hosts: () => Set<string>;
}

const HEARTBEAT_MS = 20_000;
const WORKFLOW_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/** What the client may pass in `forwardedProps`. */
interface Forwarded {
  workspace?: unknown;
  model?: unknown;
  mode?: unknown;
  lastEventId?: unknown;
}

class Refused extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/**
 * POST /ag-ui: AG-UI's run input in, its events out as Server-Sent Events. The thread is the run
 * (threadId = its workflow id). A reconnect (`Last-Event-ID`, or `forwardedProps.lastEventId`)
 * streams what follows that event; `resume` answers the interrupt the last response ended with;
 * otherwise a last message from the user starts the run or is sent to it as a follow-up. Each
 * response streams to the end of the turn: the run idle, a question for a human, done or failed.
 */
export function agUiRoute(options: AgUiOptions) {
  const { client } = options;
  return async (c: Context) => {
    try {
      const origin = c.req.header('origin');
      if (origin !== undefined && !originIsOwn(origin, options.hosts())) throw new Refused(403, `a request from ${origin} is not this page's: AG-UI clients call from a server, or from this page's own origin`);
      const parsed = RunAgentInputSchema.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) throw new Refused(400, `the body is not AG-UI's RunAgentInput: ${parsed.error.issues.map((issue: { path: PropertyKey[]; message: string }) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
      const input = parsed.data as RunAgentInput;
      if (!WORKFLOW_ID.test(input.threadId)) throw new Refused(400, 'threadId names the run: letters, digits, ".", "_", ":", "-", at most 200');
      const forwarded = (input.forwardedProps ?? {}) as Forwarded;
      const lastId = c.req.header('last-event-id') ?? (typeof forwarded.lastEventId === 'string' ? forwarded.lastEventId : undefined);
      let last: Position | undefined;
      if (lastId !== undefined) {
        last = parsePosition(lastId);
        if (!last) throw new Refused(400, `the last event id "${lastId}" is not one this server sent (<offset>:<n>)`);
      } else {
        last = await act(client, options.startRun, input, forwarded);
      }
      return stream(c, client, input, last);
    } catch (err) {
      if (err instanceof Refused) return c.text(`${err.message}\n`, err.status);
      if (err instanceof UsageError) return c.text(`${err.message}\n`, 400);
      throw err;
    }
  };
}

function originIsOwn(origin: string, hosts: Set<string>): boolean {
  try {
    return hosts.has(new URL(origin).host.toLowerCase());
  } catch {
    return false;
  }
}

/** Does what the input asks and returns where its response starts: after the last event the run had before. */
async function act(client: Client, startRun: StartRun, input: RunAgentInput, forwarded: Forwarded): Promise<Position | undefined> {
  const handle = client.workflow.getHandle(input.threadId);
  const description = await handle.describe().catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  });
  const lastMessage = input.messages.at(-1);
  const prompt = lastMessage?.role === 'user' ? textOf(lastMessage.content) : '';
  if (!description) {
    if (!prompt.trim()) throw new Refused(404, `no run ${input.threadId}: a new thread starts with a user message`);
    if (typeof forwarded.workspace !== 'string' || !path.isAbsolute(forwarded.workspace)) throw new Refused(400, 'a new thread needs forwardedProps.workspace: the absolute path of the directory the run works in');
    const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
    const model = str(forwarded.model);
    const mode = str(forwarded.mode);
    await startRun(prompt, { workflowId: input.threadId, workspace: forwarded.workspace, ...(model ? { model } : {}), ...(mode ? { mode } : {}) });
    return undefined;
  }
  if (description.status.name !== 'RUNNING') throw closedRun(input.threadId, description.status.name);
  try {
    return await actOnOpenRun(client, handle, input, prompt);
  } catch (err) {
    // The run may close between the describe and what follows (a cancel landing): say so, as for a run closed before.
    if (err instanceof Refused) throw err;
    const now = await handle.describe().catch(() => undefined);
    if (now && now.status.name !== 'RUNNING') throw closedRun(input.threadId, now.status.name);
    throw err;
  }
}

function closedRun(threadId: string, status: string): Refused {
  return new Refused(409, `run ${threadId} is ${status.toLowerCase()}: it takes no more messages or answers (send Last-Event-ID to read its events)`);
}

async function actOnOpenRun(client: Client, handle: WorkflowHandle, input: RunAgentInput, prompt: string): Promise<Position | undefined> {
  const { answers } = await readRun(client, input.threadId, [
    { name: statusQuery.name, args: [] },
    { name: eventsQuery.name, args: [0] },
  ]);
  const [status, events] = answers as [RunStatus, OffsetEvent[]];
  const lastOffset = events.at(-1)?.offset;
  const end: Position | undefined = lastOffset === undefined ? undefined : { offset: lastOffset, n: Number.MAX_SAFE_INTEGER };
  if (input.resume?.length) {
    const questions = openQuestions(status);
    // The response goes on from the answered question, so that another question asked with it ends the response as its own interrupt.
    let from: Position | undefined;
    for (const entry of input.resume) {
      if (entry.status !== 'resolved') continue;
      const asked = events.find((item) => item.event.type === 'permission_request' && item.event.requestId === entry.interruptId);
      if (asked && (!from || asked.offset > from.offset)) from = { offset: asked.offset, n: Number.MAX_SAFE_INTEGER };
      const question = questions.find((q) => q.requestId === entry.interruptId);
      if (!question) throw new Refused(409, `question ${entry.interruptId} is not open any more (answered elsewhere, or timed out): reconnect to see how it was decided`);
      const payload = (entry.payload ?? {}) as { decision?: unknown; inputDigest?: unknown };
      if (payload.decision !== 'allow' && payload.decision !== 'allow_always' && payload.decision !== 'deny') throw new Refused(400, 'a resume payload needs decision: "allow", "allow_always" or "deny"');
      if (typeof payload.inputDigest !== 'string') throw new Refused(400, "a resume payload needs the interrupt's metadata.inputDigest: the answer is to what was shown");
      await sendDecision(client, question.workflowId ?? input.threadId, {
        requestId: question.requestId,
        decision: payload.decision,
        inputDigest: payload.inputDigest,
        reason: `${payload.decision === 'deny' ? 'denied' : 'allowed'} through AG-UI`,
      }).catch((err: unknown) => {
        const cause = (err as Error).cause as Error | undefined;
        throw new Refused(409, `the answer was refused: ${cause?.message ?? (err as Error).message}`);
      });
    }
    return from ?? end;
  }
  if (prompt.trim()) await handle.signal(userMessageSignal, { text: prompt });
  return end;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { type?: string; text?: string }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** The run's stream from offset 0, translated, from the event after `last` to the end of the turn. */
function stream(c: Context, client: Client, input: RunAgentInput, last: Position | undefined): Response {
  const encoder = new EventEncoder();
  c.header('Content-Type', encoder.getContentType());
  return streamSSE(c, async (sse) => {
    const abort = new AbortController();
    sse.onAbort(() => abort.abort());
    const heartbeat = setInterval(() => void sse.write(': ping\n\n').catch(() => abort.abort()), HEARTBEAT_MS);
    const send = (event: BaseEvent, id?: string) => sse.write(`${id ? `id: ${id}\n` : ''}${encoder.encodeSSE(event)}`);
    try {
      await send({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId } as BaseEvent);
      const maker = new FrameMaker(input.threadId, input.runId);
      const state = { started: false };
      let ended = false;
      await client.withAbortSignal(abort.signal, async () => {
        for await (const { offset, event } of runEventFeed(client, input.threadId, 0, { signal: abort.signal })) {
          for (const item of framesAfter(maker, offset, event, last, state)) {
            if ('reopen' in item) {
              await send(item.reopen);
              continue;
            }
            await send(item.event, item.id);
            if (item.ends) ended = true;
          }
          if (ended) return;
        }
      });
      if (!ended && !abort.signal.aborted) await send({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId } as BaseEvent);
    } catch (err) {
      if (!abort.signal.aborted) await send({ type: EventType.RUN_ERROR, message: (err as Error).message } as BaseEvent).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
    }
  });
}
