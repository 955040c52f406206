import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { acpSdk, type Acp } from '../../src/acp/acp-sdk';

const { client: acpClient, ndJsonStream } = acpSdk();
type ClientContext = Acp.ClientContext;
type SessionNotification = Acp.SessionNotification;
type RequestPermissionRequest = Acp.RequestPermissionRequest;
type RequestPermissionResponse = Acp.RequestPermissionResponse;
import { decidePermissionUpdate } from '../../src/common/contract';
import type { RunStatus } from '../../src/common/wire';
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

test('a turn with a tool call, its question answered in the editor, a follow-up; the editor\'s MCP servers over http refused clearly', async () => {
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

    await expect(ed.cx.request('session/new', { cwd: workspace, mcpServers: [{ type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [] }] })).rejects.toThrow(/takes stdio MCP servers only/);
    await expect(ed.cx.request('session/new', { cwd: workspace, mcpServers: [{ name: 'no spaces', command: 'node', args: [], env: [] }] })).rejects.toThrow(/must be 1-32 letters/);
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

test('a file changed by a command shows as a diff from the checkpoints; a file over the limit is named, not sent', async () => {
  h.model.setScenario('acp-diff', [
    {
      text: 'Renaming.',
      toolCalls: [{ id: 'call_sed', name: 'bash', arguments: { command: "sed -i 's/old_name/new_name/' src/app.js && head -c 400000 /dev/zero | tr '\\0' x > big.txt" } }],
    },
    { text: 'Renamed.' },
  ]);
  const workspace = h.workspace({ 'src/app.js': 'const old_name = 1;\nexport default old_name;\n' });
  const ed = editor('acp-diff', allow);
  try {
    await initialize(ed.cx);
    const { sessionId } = await ed.cx.request('session/new', { cwd: workspace, mcpServers: [] });
    expect((await ed.cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'rename it' }] })).stopReason).toBe('end_turn');
    const result = ed.updates.map((n) => n.update).find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'call_sed') as Acp.ToolCallUpdate;
    expect(result.content).toEqual(
      expect.arrayContaining([
        { type: 'diff', path: path.join(workspace, 'src/app.js'), oldText: 'const old_name = 1;\nexport default old_name;\n', newText: 'const new_name = 1;\nexport default new_name;\n' },
        { type: 'content', content: { type: 'text', text: expect.stringMatching(/^big\.txt: added, not shown \(larger than 256 KiB\)$/) } },
      ]),
    );
    // A loaded session replays the change as it was shown.
    const again = editor('acp-diff', allow);
    try {
      await initialize(again.cx);
      await again.cx.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
      const replayed = again.updates.map((n) => n.update).find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'call_sed') as Acp.ToolCallUpdate;
      expect(replayed.content?.filter((c) => c.type === 'diff')).toEqual(result.content?.filter((c) => c.type === 'diff'));
    } finally {
      again.close();
    }
    await h.client.workflow.getHandle(sessionId).cancel();
  } finally {
    ed.close();
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

test("the editor's MCP servers wait for the run-start question: rejected, none starts; allowed, the model's call reaches it; changed since shown, refused", async () => {
  const script = [{ text: 'Asking it.', toolCalls: [{ id: 'call_echo', name: 'mcp__echo__echo', arguments: { text: 'hi' } }] }, { text: 'Done.' }];
  h.model.setScenario('acp-mcp-no', script);
  h.model.setScenario('acp-mcp-yes', script);
  h.model.setScenario('acp-mcp-changed', script);
  const echoServer = readFileSync(path.join(ROOT, 'test/support/echo-mcp-server.js'), 'utf8');
  for (const answerWith of ['deny', 'allow', 'allow, then the file changes'] as const) {
    const trusted = answerWith === 'allow';
    // The server's file is in the workspace: the run's sandbox sees it, as it would a project's own tool.
    const workspace = h.workspace({ 'tools/echo.js': echoServer });
    const answer: Answer = async (request) => {
      const isSettings = (request.toolCall.rawInput as { clientMcpServers?: unknown } | undefined)?.clientMcpServers !== undefined;
      if (isSettings && answerWith === 'allow, then the file changes') writeFileSync(path.join(workspace, 'tools/echo.js'), `${echoServer}\n// changed after it was shown\n`);
      return { outcome: { outcome: 'selected', optionId: isSettings && answerWith === 'deny' ? 'deny' : 'allow' } };
    };
    const ed = editor(answerWith === 'deny' ? 'acp-mcp-no' : trusted ? 'acp-mcp-yes' : 'acp-mcp-changed', answer);
    try {
      await initialize(ed.cx);
      const { sessionId } = await ed.cx.request('session/new', { cwd: workspace, mcpServers: [{ name: 'echo', command: 'node', args: [path.join(workspace, 'tools/echo.js')], env: [{ name: 'ECHO_TOKEN', value: 'sk-editor-secret' }] }] });
      expect((await ed.cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo hi' }] })).stopReason).toBe('end_turn');
      // The run-start question came first, showing the server as it would run (its env by name only).
      expect(ed.asked[0]?.toolCall).toMatchObject({
        title: expect.stringContaining("the editor's"),
        rawInput: { clientMcpServers: [{ name: 'echo', command: 'node', args: [path.join(workspace, 'tools/echo.js')], env: ['ECHO_TOKEN'], pins: [{ path: 'tools/echo.js', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }] }] },
      });
      expect(JSON.stringify(ed.asked[0]?.toolCall.rawInput)).not.toContain('sk-editor-secret');
      const result = ed.updates.map((n) => n.update).find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'call_echo') as Acp.ToolCallUpdate;
      const said = JSON.stringify(result.content);
      if (trusted) {
        expect(said).toContain('echo: hi');
        expect(existsSync(path.join(workspace, 'mcp-started'))).toBe(true);
      } else {
        if (answerWith !== 'deny') {
          // Allowed, but the file it runs is not what the question showed: the server is refused, and the model told why.
          const status = await h.client.workflow.getHandle(sessionId).query<RunStatus>('status');
          expect(status.mcpServers).toEqual([{ name: 'echo', tools: 0, error: expect.stringMatching(/^MCP server "echo" is not started: .*tools\/echo\.js/) }]);
        }
        expect(said).not.toContain('echo: hi');
        expect(result.status).toBe('failed');
        expect(existsSync(path.join(workspace, 'mcp-started'))).toBe(false);
      }
      await h.client.workflow.getHandle(sessionId).cancel();
    } finally {
      ed.close();
    }
  }
});
