import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { cancelTurnSignal, eventsQuery, messagesQuery, userMessageSignal } from '../common/contract';
import type { RunEvent } from '../common/events';
import type { McpServers } from '../common/mcp';
import type { Message } from '../common/messages';
import type { StepRecord } from '../common/wire';
import type { ConnectionConfig } from '../connection/config';
import { packageVersion } from '../connection/package-version';
import { startCheckedRun } from '../cli/start-run';
import { buildRunInput } from '../cli/run-input';
import { refuseOverlap } from '../cli/commands/run';
import { checkWorkspace } from '../cli/run-setup-check';
import { newWorkflowId } from '../runs/run-labels';
import { readRun } from '../runs/run-snapshot';
import { UsageError } from '../runs/usage-error';
import { acpSdk, type Acp } from './acp-sdk';
import { editorMcpServers } from './editor-mcp-servers';
import { fileChangeView } from './file-change-view';
import { toolCallView } from './tool-call-view';
import { followTurn, type Editor, type SessionState } from './turn-follower';

/** A session's run stays open this long after each answer for the editor's next prompt. */
export const SESSION_IDLE = '2h';

const refused = (message: string) => new (acpSdk().RequestError)(-32602, message);

/** The agent's side of ACP: a session is a durable run whose id is the session's. */
/** What every session of this agent starts its run with: `bareagent acp --model m --mode auto`. */
export interface SessionDefaults {
  model?: string;
  mode?: string;
}

export function acpAgent(client: Client, config: ConnectionConfig, defaults: SessionDefaults = {}): Acp.AgentApp {
  const { agent, PROTOCOL_VERSION } = acpSdk();
  const sessions = new Map<string, SessionState>();
  let editor: Editor | undefined;
  let editorName = 'an editor';
  const connectedEditor = (): Editor => {
    if (!editor) throw new Error('no editor connected');
    return editor;
  };
  const session = (id: string): SessionState => {
    const found = sessions.get(id);
    if (!found) throw acpSdk().RequestError.sessionNotFound(id);
    return found;
  };
  /** The same checks as `bareagent run` before any run exists. */
  const checkSessionStart = async (cwd: string, clientMcpServers?: McpServers) => {
    try {
      const input = buildRunInput('(checked at session/new)', { ...defaults, workspace: cwd, ...(clientMcpServers ? { clientMcpServers } : {}) });
      refuseOverlap(input.workspace);
      await checkWorkspace(input.workspace ?? cwd);
    } catch (err) {
      throw err instanceof UsageError ? refused(err.message) : err;
    }
  };
  return agent({ name: 'bareagent' })
    .onConnect((connection) => {
      editor = {
        update: (sessionId, update) => connection.client.notify('session/update', { sessionId, update }),
        askPermission: (request, signal) => connection.client.request('session/request_permission', request, { cancellationSignal: signal }),
        name: () => editorName,
      };
    })
    .onRequest('initialize', ({ params }) => {
      if (params.clientInfo?.name) editorName = params.clientInfo.name;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: 'bareagent', title: 'BareAgent on Temporal', version: packageVersion() },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: false },
          mcpCapabilities: { http: false, sse: false },
        },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params }) => {
      let offered: McpServers | undefined;
      try {
        offered = editorMcpServers(params.mcpServers);
      } catch (err) {
        throw err instanceof UsageError ? refused(err.message) : err;
      }
      await checkSessionStart(params.cwd, offered);
      const id = newWorkflowId();
      sessions.set(id, { id, cwd: params.cwd, offset: 0, asked: new Map(), ...(offered ? { mcpServers: offered } : {}) });
      return { sessionId: id };
    })
    .onRequest('session/prompt', async ({ params }) => {
      const current = session(params.sessionId);
      const text = promptText(params.prompt);
      if (!text.trim()) throw refused('The prompt holds no text.');
      const handle = client.workflow.getHandle(current.id);
      const existing = await handle.describe().catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
      if (!existing) {
        await startCheckedRun(client, config, text, { ...defaults, workspace: current.cwd, id: current.id, idleTimeout: SESSION_IDLE, ...(current.mcpServers ? { clientMcpServers: current.mcpServers } : {}) }).catch((err: unknown) => {
          throw err instanceof UsageError ? refused(err.message) : err;
        });
      } else {
        if (existing.status.name !== 'RUNNING') throw refused(`Run ${current.id} is ${existing.status.name.toLowerCase()}; it takes no more prompts. Start a new session.`);
        await handle.signal(userMessageSignal, { text });
      }
      return { stopReason: await followTurn(client, connectedEditor(), current) };
    })
    .onNotification('session/cancel', async ({ params }) => {
      const current = sessions.get(params.sessionId);
      if (!current) return;
      for (const asked of current.asked.values()) asked.abort();
      // The turn, not the run: the prompt under way ends `cancelled` and the next one continues the same run.
      await client.workflow.getHandle(current.id).signal(cancelTurnSignal, { reason: `cancelled through bareagent acp (${editorName})` }).catch(() => undefined);
    })
    .onRequest('session/load', async ({ params }) => {
      // The run's MCP servers were fixed at its start: the ones offered now are not added.
      await checkSessionStart(params.cwd);
      const { description, answers } = await readRun(client, params.sessionId, [
        { name: messagesQuery.name, args: [] },
        { name: eventsQuery.name, args: [0] },
      ]).catch((err: unknown) => {
        throw err instanceof WorkflowNotFoundError ? acpSdk().RequestError.sessionNotFound(params.sessionId) : err;
      });
      const [messages, events] = answers as [Message[], Array<{ offset: number; event: RunEvent }>];
      const open = description.status.name === 'RUNNING';
      // An open run is shown up to its last step from its conversation; what follows, from its stream.
      const lastStep = open ? [...events].reverse().find((item) => item.event.type === 'step') : undefined;
      const firstReply = messages.findIndex((message) => message.role === 'assistant');
      const beforeSteps = firstReply === -1 ? messages.length : firstReply;
      const shownCount = !open ? messages.length : lastStep ? ((lastStep.event as { record: StepRecord }).record.message_count ?? messages.length) : beforeSteps;
      const loaded: SessionState = { id: params.sessionId, cwd: params.cwd, offset: open ? (lastStep ? lastStep.offset + 1 : 0) : (events.at(-1)?.offset ?? -1) + 1, asked: new Map() };
      sessions.set(loaded.id, loaded);
      const around = new Map(events.flatMap(({ event }) => (event.type === 'tool_result' && event.checkpoint ? [[event.id, event.checkpoint] as const] : [])));
      const changesOf = (id: string) => (around.has(id) ? fileChangeView(client, loaded, around.get(id)!).catch(() => []) : Promise.resolve([]));
      for (const update of await conversationUpdates(messages.slice(0, shownCount), loaded.cwd, changesOf)) await connectedEditor().update(loaded.id, update);
      // Still working or waiting for a human: the rest of the turn streams on after the answer.
      if (open) void followTurn(client, connectedEditor(), loaded);
      return {};
    });
}

function promptText(blocks: Acp.ContentBlock[]): string {
  return blocks
    .map((block) => (block.type === 'text' ? block.text : block.type === 'resource_link' ? `@${block.uri.replace(/^file:\/\//, '')}` : ''))
    .filter(Boolean)
    .join('\n');
}

/** A conversation as the updates that would have shown it: the human's words, the agent's, each tool call with its outcome and file changes. */
async function conversationUpdates(messages: Message[], cwd: string, changesOf: (toolCallId: string) => Promise<Acp.ToolCallContent[]>): Promise<Acp.SessionUpdate[]> {
  const updates: Acp.SessionUpdate[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type === 'text' && block.text) {
        updates.push({ sessionUpdate: message.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk', content: { type: 'text', text: block.text } });
      } else if (block.type === 'tool_use') {
        updates.push({ sessionUpdate: 'tool_call', ...toolCallView(block, cwd) });
      } else if (block.type === 'tool_result') {
        updates.push({
          sessionUpdate: 'tool_call_update',
          toolCallId: block.tool_use_id,
          status: block.is_error ? 'failed' : 'completed',
          content: [...(await changesOf(block.tool_use_id)), { type: 'content', content: { type: 'text', text: block.content } }],
        });
      }
    }
  }
  return updates;
}
