import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { acpSdk, type Acp } from '../../src/acp/acp-sdk';

const { client: acpClient, ndJsonStream } = acpSdk();
type ClientContext = Acp.ClientContext;
type SessionNotification = Acp.SessionNotification;
type RequestPermissionRequest = Acp.RequestPermissionRequest;
type RequestPermissionResponse = Acp.RequestPermissionResponse;
import { decidePermissionUpdate } from '../../src/common/contract';
import { Harness } from '../support/harness';
import { cliEnv } from '../support/cli';
import { pendingRequest, waitFor } from '../support/wait-for';

const ROOT = path.resolve(__dirname, '../..');

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

type Answer = (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>;

/** An editor: `bareagent acp` spawned, the SDK's client side on its stdio, what it was sent kept. */
function editor(model: string, answer: Answer) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), 'acp', '--model', model], {
    cwd: ROOT,
    env: { ...process.env, ...cliEnv(h) },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const updates: SessionNotification[] = [];
  const asked: RequestPermissionRequest[] = [];
  const app = acpClient({ name: 'acp-test-editor' })
    .onNotification('session/update', ({ params }) => void updates.push(params))
    .onRequest('session/request_permission', ({ params, signal }) => {
      asked.push(params);
      return answer(params, signal);
    });
  const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  const cx = connection.agent as ClientContext;
  const text = () =>
    updates
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u as { content: { text?: string } }).content.text ?? '')
      .join('');
  return {
    cx,
    updates,
    asked,
    text,
    child,
    stderr: () => stderr,
    close: () => {
      connection.close();
      child.kill();
    },
  };
}

const allow: Answer = async () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
const initialize = (cx: ClientContext) => cx.request('initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'acp-test-editor', version: '1' } });

test('a turn with a tool call, its question answered in the editor, a follow-up; the editor\'s MCP servers refused clearly', async () => {
  h.model.setScenario('acp-turns', [
    { text: 'Making it.', toolCalls: [{ id: 'call_touch', name: 'bash', arguments: { command: 'touch made.txt' } }] },
    { text: 'Made it.' },
    { text: 'Nothing else.' },
  ]);
  const workspace = h.workspace();
  const ed = editor('acp-turns', allow);
  try {
    const init = await initialize(ed.cx);
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, mcpCapabilities: { http: false, sse: false }, promptCapabilities: { image: false } });
    const { sessionId } = await ed.cx.request('session/new', { cwd: workspace, mcpServers: [] });
    // No run exists before the first prompt.
    await expect(h.client.workflow.getHandle(sessionId).describe()).rejects.toThrow(/not found/i);
    const first = await ed.cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'make a file' }], _meta: null });
    expect(first.stopReason).toBe('end_turn');
    expect(existsSync(path.join(workspace, 'made.txt'))).toBe(true);
    expect(ed.asked).toHaveLength(1);
    expect(ed.asked[0]?.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(ed.asked[0]?.toolCall).toMatchObject({ toolCallId: 'call_touch', rawInput: { command: 'touch made.txt' } });
    const kinds = ed.updates.map((n) => n.update.sessionUpdate);
    expect(kinds).toEqual(expect.arrayContaining(['agent_message_chunk', 'tool_call', 'tool_call_update']));
    expect(ed.updates.find((n) => n.update.sessionUpdate === 'tool_call')?.update).toMatchObject({ toolCallId: 'call_touch', kind: 'execute', title: 'bash touch made.txt' });
    expect(ed.updates.find((n) => n.update.sessionUpdate === 'tool_call_update')?.update).toMatchObject({ toolCallId: 'call_touch', status: 'completed' });
    expect(ed.text()).toBe('Making it.Made it.');
    // The answer records where it came from.
    const decided = (await h.client.workflow.getHandle(sessionId).query('events', 0)) as Array<{ event: { type: string; reason?: string } }>;
    expect(decided.find((e) => e.event.type === 'permission_decided')?.event.reason).toBe('allowed through bareagent acp (acp-test-editor)');

    const second = await ed.cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'anything else?' }] });
    expect(second.stopReason).toBe('end_turn');
    expect(ed.text()).toBe('Making it.Made it.Nothing else.');

    await expect(ed.cx.request('session/new', { cwd: workspace, mcpServers: [{ name: 'fs', command: 'node', args: [], env: [] }] })).rejects.toThrow(/does not take the editor's MCP servers/);
    await expect(ed.cx.request('session/new', { cwd: path.join(workspace, 'nope'), mcpServers: [] })).rejects.toThrow(/does not exist/);
    await h.client.workflow.getHandle(sessionId).cancel();
  } finally {
    ed.close();
  }
});

test('the editor killed mid-turn: a new one loads the session, is asked again, and the page\'s answer withdraws its question', async () => {
  h.model.setScenario('acp-load', [
    { text: 'Cleaning.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] },
    { text: 'Build removed.' },
  ]);
  const workspace = h.workspace({ 'build/out.js': 'x' });
  const first = editor('acp-load', () => new Promise(() => undefined));
  await initialize(first.cx);
  const { sessionId } = await first.cx.request('session/new', { cwd: workspace, mcpServers: [] });
  void first.cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remove the build folder' }] }).catch(() => undefined);
  await waitFor(async () => (first.asked.length > 0 ? true : undefined), 'the first editor asked');
  first.child.kill('SIGKILL');
  first.close();

  // The new editor leaves its question unanswered; the answer comes through the run's own update, as the page sends it.
  let withdrawn: (() => void) | undefined;
  const wasWithdrawn = new Promise<void>((resolve) => (withdrawn = resolve));
  const second = editor(
    'acp-load',
    (_request, signal) =>
      new Promise((resolve) =>
        signal.addEventListener('abort', () => {
          withdrawn?.();
          resolve({ outcome: { outcome: 'cancelled' } });
        }),
      ),
  );
  try {
    await initialize(second.cx);
    await second.cx.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    const replayed = second.updates.map((n) => n.update);
    expect(replayed[0]).toMatchObject({ sessionUpdate: 'user_message_chunk', content: { text: expect.stringContaining('remove the build folder') } });
    await waitFor(async () => (second.asked.length > 0 ? true : undefined), 'the loaded session asked again');
    expect(second.asked[0]?.toolCall).toMatchObject({ toolCallId: 'call_rm' });
    const handle = h.client.workflow.getHandle(sessionId);
    const pending = await pendingRequest(handle, 'call_rm');
    await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: pending.requestId, decision: 'allow', reason: 'on the page' }] });
    await wasWithdrawn;
    await waitFor(async () => (second.text().endsWith('Build removed.') ? true : undefined), 'the rest of the turn');
    // Each of the turn's words once: the replay up to the question, then the rest.
    expect(second.text()).toBe('Cleaning.Build removed.');
    expect(existsSync(path.join(workspace, 'build'))).toBe(false);
    await handle.cancel();
  } finally {
    second.close();
  }
});

test('session/cancel stops the turn, not the run: the prompt ends cancelled, the question is withdrawn, the next prompt is answered', async () => {
  h.model.setScenario('acp-cancel', [{ hang: true }, { text: 'Sleeping.', toolCalls: [{ id: 'call_sleep', name: 'bash', arguments: { command: 'sleep 30' } }] }, { text: 'Here again.' }]);
  const workspace = h.workspace();
  let withdrawn = 0;
  const ed = editor(
    'acp-cancel',
    (_request, signal) =>
      new Promise((resolve) =>
        signal.addEventListener('abort', () => {
          withdrawn += 1;
          resolve({ outcome: { outcome: 'cancelled' } });
        }),
      ),
  );
  try {
    await initialize(ed.cx);
    const { sessionId } = await ed.cx.request('session/new', { cwd: workspace, mcpServers: [] });
    const handle = h.client.workflow.getHandle(sessionId);

    // Mid model call.
    const first = ed.cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'first' }] });
    await waitFor(async () => (h.model.requestsFor('acp-cancel').length === 1 ? true : undefined), 'the model call under way');
    await ed.cx.notify('session/cancel', { sessionId });
    expect((await first).stopReason).toBe('cancelled');

    // Mid turn, with the editor asked about a command.
    const second = ed.cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'second' }] });
    await waitFor(async () => (ed.asked.length === 1 ? true : undefined), 'the editor asked');
    await ed.cx.notify('session/cancel', { sessionId });
    expect((await second).stopReason).toBe('cancelled');
    expect(withdrawn).toBe(1);
    expect((await handle.query('status')) as { pendingPermissions: unknown[] }).toMatchObject({ pendingPermissions: [] });

    const third = await ed.cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'third' }] });
    expect(third.stopReason).toBe('end_turn');
    expect(ed.text()).toBe('Sleeping.Here again.');
    expect(ed.updates.map((n) => n.update).find((u) => u.sessionUpdate === 'tool_call_update')).toMatchObject({ toolCallId: 'call_sleep', status: 'failed' });
    // One run all along, still open for the next prompt.
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const steps = (await handle.query('steps')) as Array<{ reason: string }>;
    expect(steps.filter((s) => s.reason === 'turn_cancelled')).toHaveLength(2);
    await handle.cancel();
  } finally {
    ed.close();
  }
});
