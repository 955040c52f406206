import type { Client } from '@temporalio/client';
import type { RunEvent } from '../common/events';
import type { McpServers } from '../common/mcp';
import { WORKSPACE_SETTINGS_TOOL } from '../common/workspace-settings';
import type { StepRecord } from '../common/wire';
import { inputDigest } from '../loop/input-digest';
import { isPending, sendDecision } from '../runs/decisions';
import { runEventFeed } from '../runs/run-event-feed';
import type { Acp } from './acp-sdk';
import { fileChangeView } from './file-change-view';
import { toolCallView } from './tool-call-view';

/** What a session needs of the editor: its updates and its permission questions. */
export interface Editor {
  update(sessionId: string, update: Acp.SessionUpdate): Promise<void>;
  askPermission(request: Acp.RequestPermissionRequest, signal: AbortSignal): Promise<Acp.RequestPermissionResponse>;
  name(): string;
}

export interface SessionState {
  /** The run's workflow id. */
  id: string;
  cwd: string;
  /** The MCP servers the editor offered at `session/new`, for the run's start to ask about. */
  mcpServers?: McpServers;
  /** The run's checkpoint store, once read: where its file changes are diffed from. */
  store?: string;
  /** The first event of the run's stream not yet shown to the editor. */
  offset: number;
  /** The turn being followed, if any. */
  turn?: Promise<Acp.StopReason>;
  /** Questions put to the editor and not answered yet, by the run's request id. */
  asked: Map<string, AbortController>;
}

/** The run-start question: the workspace's own hooks and MCP servers, and the editor's MCP servers. */
const SETTINGS_TITLE = "Run the MCP servers (the editor's, the workspace's) and hooks offered to this run?";

const OPTIONS: Acp.PermissionOption[] = [
  { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Allow always (for this run)', kind: 'allow_always' },
  { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
];

/**
 * Follows the session's run from its offset to the end of the current turn (the run idle after an
 * answer, or closed), sending the editor each event as a `session/update` and each question as a
 * `session/request_permission`. A question answered elsewhere (the page, the CLI) is withdrawn
 * from the editor: its request is cancelled.
 */
export function followTurn(client: Client, editor: Editor, session: SessionState): Promise<Acp.StopReason> {
  session.turn ??= runTurn(client, editor, session).finally(() => (session.turn = undefined));
  return session.turn;
}

async function runTurn(client: Client, editor: Editor, session: SessionState): Promise<Acp.StopReason> {
  const send = (update: Acp.SessionUpdate) => editor.update(session.id, update);
  for await (const { offset, event } of runEventFeed(client, session.id, session.offset)) {
    session.offset = offset + 1;
    const end = await show(client, editor, session, event, send);
    if (end) return end;
  }
  for (const asked of session.asked.values()) asked.abort();
  return 'cancelled';
}

async function show(client: Client, editor: Editor, session: SessionState, event: RunEvent, send: (update: Acp.SessionUpdate) => Promise<void>): Promise<Acp.StopReason | undefined> {
  switch (event.type) {
    case 'text':
      await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta } });
      return undefined;
    case 'tool_call':
      await send({ sessionUpdate: 'tool_call', ...toolCallView(event, session.cwd) });
      return undefined;
    case 'tool_result': {
      // A change the checkpoints cannot show (a store gone, git missing) leaves the result as it is.
      const changes = event.checkpoint ? await fileChangeView(client, session, event.checkpoint).catch(() => []) : [];
      await send({
        sessionUpdate: 'tool_call_update',
        toolCallId: event.id,
        status: event.isError ? 'failed' : 'completed',
        content: [...changes, { type: 'content', content: { type: 'text', text: event.preview } }],
      });
      return undefined;
    }
    case 'permission_request':
      void ask(client, editor, session, event);
      return undefined;
    case 'permission_decided':
      session.asked.get(event.requestId)?.abort();
      return undefined;
    case 'step':
      return turnEnd((event.record as StepRecord | undefined)?.reason);
    case 'final':
      return 'end_turn';
    case 'failed':
      await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\nThe run stopped: ${event.message}` } });
      return stopReasonOf(event.failureType);
    default:
      return undefined;
  }
}

/** The step records that end a turn while the run stays open: an answer, or a turn the `cancelTurn` signal stopped. */
function turnEnd(reason: string | undefined): Acp.StopReason | undefined {
  if (reason === 'idle') return 'end_turn';
  if (reason === 'turn_cancelled') return 'cancelled';
  return undefined;
}

function stopReasonOf(failureType: string): Acp.StopReason {
  if (/iteration/i.test(failureType)) return 'max_turn_requests';
  if (/token|cost|budget/i.test(failureType)) return 'max_tokens';
  if (/cancel/i.test(failureType)) return 'cancelled';
  return 'end_turn';
}

/** Puts one question to the editor, and its answer to the run with the run's request id and the digest of what was shown. */
async function ask(client: Client, editor: Editor, session: SessionState, event: Extract<RunEvent, { type: 'permission_request' }>): Promise<void> {
  const target = event.workflowId ?? session.id;
  // Replayed from the stream: only a question still open is asked.
  if (session.asked.has(event.requestId) || !(await isPending(client, target, event.requestId).catch(() => false))) return;
  const withdrawn = new AbortController();
  session.asked.set(event.requestId, withdrawn);
  try {
    const response = await editor.askPermission(
      { sessionId: session.id, toolCall: { ...toolCallView({ id: event.toolCallId, name: event.tool, input: event.input }, session.cwd, { proposed: true }), title: event.tool === WORKSPACE_SETTINGS_TOOL ? SETTINGS_TITLE : `Allow ${event.tool}?` }, options: OPTIONS },
      withdrawn.signal,
    );
    if (response.outcome.outcome !== 'selected' || withdrawn.signal.aborted) return;
    const { optionId } = response.outcome;
    const decision = optionId === 'allow' || optionId === 'allow_always' ? optionId : 'deny';
    const source = `through bareagent acp (${editor.name()})`;
    // Refused when answered elsewhere meanwhile: that answer stands, and the stream says which.
    await sendDecision(client, target, {
      requestId: event.requestId,
      decision,
      inputDigest: inputDigest(event.tool, event.input),
      reason: `${decision === 'deny' ? 'denied' : 'allowed'} ${source}`,
    }).catch(() => undefined);
  } catch {
    // Withdrawn, or the editor went away: the question stays open in the run for any approver.
  } finally {
    session.asked.delete(event.requestId);
  }
}
