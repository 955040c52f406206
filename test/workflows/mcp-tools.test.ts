import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Message, ToolResultBlock } from '../../src/common/messages';
import type { RunStatus } from '../../src/common/wire';
import { Harness } from '../support/harness';
import { requestIdFor } from '../support/wait-for';
import { everythingServer, filesystemServer, MCP_READ_PATHS, META_ECHO_READ_PATHS, metaEchoServer } from '../support/mcp-servers';
import { checkpointsQuery, messagesQuery, permissionDecisionSignal, statusQuery } from '../../src/common/contract';
import { localActivityTypes } from '../support/history-activities';

const WORKER_ONLY = 'worker-only-value-never-in-a-server';

let h: Harness;
beforeAll(async () => {
  // A variable of the worker's own: no MCP server may see it.
  process.env.BAREAGENT_TEST_WORKER_ONLY = WORKER_ONLY;
  h = await Harness.create();
  await h.startWorker();
});
afterAll(async () => {
  delete process.env.BAREAGENT_TEST_WORKER_ONLY;
  await h.close();
});

const sandbox = { network: 'none', readOnlyPaths: MCP_READ_PATHS };

function results(messages: Message[]): ToolResultBlock[] {
  return messages.flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? (m.content.filter((b) => b.type === 'tool_result') as ToolResultBlock[]) : []));
}

async function run(calls: Array<Array<{ id: string; name: string; arguments: unknown }>>, input: Record<string, unknown>, workspace = h.workspace()) {
  const scenario = `mcp-${Math.random()}`;
  h.model.setScenario(scenario, [...calls.map((toolCalls) => ({ toolCalls })), { text: 'Done.' }]);
  const started = Date.now();
  const handle = await h.start({ prompt: 'Use the tools', model: scenario, workspace, stream: false, sandbox, ...input });
  const result = await handle.result();
  const ms = Date.now() - started;
  return {
    handle,
    result,
    ms,
    workspace,
    results: results(await handle.query(messagesQuery)),
    status: await handle.query(statusQuery),
    requests: h.model.requestsFor(scenario),
  };
}

test('server-everything: the model sees mcp__everything__* tools; read-only ones run without asking, in the sandbox, with only their own env', async () => {
  const { result, results: got, status, requests, ms } = await run(
    [
      [
        { id: 'e1', name: 'mcp__everything__echo', arguments: { message: 'hello mcp' } },
        { id: 'e2', name: 'mcp__everything__get-sum', arguments: { a: 2, b: 40 } },
        { id: 'e3', name: 'mcp__everything__get-env', arguments: {} },
      ],
      [{ id: 'e4', name: 'mcp__everything__echo', arguments: { message: 'again' } }],
    ],
    { mcpServers: { everything: everythingServer({ CONFIGURED_VAR: 'from-config' }) } },
  );
  expect(result).toMatchObject({ text: 'Done.', stopReason: 'final_answer' });
  const offered = requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name);
  expect(offered).toEqual(expect.arrayContaining(['read_file', 'bash', 'mcp__everything__echo', 'mcp__everything__get-sum']));
  const echo = requests[0]?.body.tools.find((t: { function: { name: string } }) => t.function.name === 'mcp__everything__echo');
  expect(echo.function.parameters).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
  expect(got.map((r) => r.is_error)).toEqual([false, false, false, false]);
  expect(got[0]?.content).toBe('Echo: hello mcp');
  expect(got[1]?.content).toContain('42');
  // The server ran inside bubblewrap (its private home) and saw its configured env, not the worker's.
  expect(got[2]?.content).toContain('from-config');
  expect(got[2]?.content).toContain('/tmp/home');
  expect(got[2]?.content).not.toContain(WORKER_ONLY);
  expect(got[2]?.content).not.toContain('sk-test-secret');
  expect(got[3]?.content).toBe('Echo: again');
  expect(status.mcpServers).toEqual([{ name: 'everything', tools: expect.any(Number) }]);
  expect(status.pendingPermissions).toEqual([]);
  console.log(`server-everything run with 4 MCP calls: ${ms} ms`);
});

test('server-filesystem from the workspace .bareagent/mcp.json: writes need an allow rule, a deny rule wins, a glob names the server', async () => {
  const workspace = h.workspace({ 'notes.txt': 'first line\n' });
  mkdirSync(path.join(workspace, '.bareagent'));
  writeFileSync(path.join(workspace, '.bareagent/mcp.json'), JSON.stringify({ mcpServers: { fs: filesystemServer(workspace) } }));
  const { results: got, status } = await run(
    [
      [
        { id: 'f1', name: 'mcp__fs__read_text_file', arguments: { path: path.join(workspace, 'notes.txt') } },
        { id: 'f2', name: 'mcp__fs__write_file', arguments: { path: path.join(workspace, 'out.txt'), content: 'written by mcp' } },
        { id: 'f3', name: 'mcp__fs__move_file', arguments: { source: path.join(workspace, 'notes.txt'), destination: path.join(workspace, 'moved.txt') } },
      ],
    ],
    // The workspace's own servers apply once the starter vouches for them (or a human allows them at the start).
    { permissionRules: { allow: ['mcp__fs__*'], deny: ['mcp__fs__move_file', 'mcp__github__create_issue'] }, trustWorkspaceSettings: true },
    workspace,
  );
  expect(got[0]).toMatchObject({ content: 'first line\n', is_error: false });
  expect(got[1]).toMatchObject({ is_error: false });
  expect(readFileSync(path.join(workspace, 'out.txt'), 'utf8')).toBe('written by mcp');
  expect(got[2]).toMatchObject({ content: 'User denied.', is_error: true });
  expect(readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('first line\n');
  expect(status.mcpServers).toEqual([{ name: 'fs', tools: expect.any(Number) }]);
});

test("an MCP call's checkpoint is taken in its own activity: the file it wrote is on the step, and no checkpoint activity follows the round", async () => {
  const workspace = h.workspace({ 'notes.txt': 'first line\n' });
  const { handle, results: got } = await run(
    [[{ id: 'w1', name: 'mcp__fs__write_file', arguments: { path: path.join(workspace, 'made.txt'), content: 'made by mcp' } }], [{ id: 'w2', name: 'mcp__fs__read_text_file', arguments: { path: path.join(workspace, 'made.txt') } }]],
    { mcpServers: { fs: filesystemServer(workspace) }, permissionRules: { allow: ['mcp__fs__*'] } },
    workspace,
  );
  expect(got.map((r) => r.is_error)).toEqual([false, false]);
  const view = await handle.query(checkpointsQuery);
  // Step 0 (the run's start), then one checkpoint per round: the write's holds made.txt, the read's changes nothing.
  expect(view.steps.map((s) => s.changed)).toEqual([0, 1, 0]);
  const store = view.store!;
  const show = (step: number) => execFileSync('git', ['--git-dir', store, 'show', `${view.steps[step]!.id}:made.txt`], { env: { PATH: process.env.PATH, HOME: '/nonexistent' } }).toString();
  expect(show(1)).toBe('made by mcp');
  const events = (await handle.fetchHistory()).events ?? [];
  const locals = localActivityTypes(events);
  // The run start's checkpoint only: the rounds' came back with the mcpCallTool results.
  expect(locals.filter((name) => name === 'checkpointWorkspace')).toHaveLength(1);
});

test('in default mode a write tool asks a human, who may deny it', async () => {
  const workspace = h.workspace();
  const scenario = `mcp-ask-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'w1', name: 'mcp__fs__create_directory', arguments: { path: path.join(workspace, 'made') } }] },
    { text: 'Done.' },
  ]);
  const handle = await h.start({ prompt: 'Make a dir', model: scenario, workspace, stream: false, sandbox, mcpServers: { fs: filesystemServer(workspace) } });
  let status: RunStatus | undefined;
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    status = await handle.query(statusQuery);
    if (status.pendingPermissions.length > 0) break;
  }
  expect(status?.pendingPermissions[0]).toMatchObject({ toolCallId: 'w1', tool: 'mcp__fs__create_directory' });
  await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'w1'), decision: 'deny' });
  await handle.result();
  expect(results(await handle.query(messagesQuery))[0]).toMatchObject({ content: 'User denied.', is_error: true });
});

test('a server that does not start: the run goes on, the model is told, status shows why, a call is an error result', async () => {
  const { result, results: got, status, requests } = await run(
    [
      [
        { id: 'b1', name: 'mcp__broken__anything', arguments: {} },
        { id: 'b2', name: 'mcp__everything__echo', arguments: { message: 'still here' } },
      ],
    ],
    { mcpServers: { broken: { command: 'no-such-mcp-server-command' }, everything: everythingServer() } },
  );
  expect(result.stopReason).toBe('final_answer');
  expect(status.mcpServers).toEqual(
    expect.arrayContaining([{ name: 'broken', tools: 0, error: expect.stringContaining('did not start') }, { name: 'everything', tools: expect.any(Number) }]),
  );
  expect(requests[0]?.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('broken: MCP server "broken" did not start') });
  expect(got[0]).toMatchObject({ content: 'Unknown tool: mcp__broken__anything', is_error: true });
  expect(got[1]).toMatchObject({ content: 'Echo: still here', is_error: false });
});

test('a bad mcp.json in the workspace is reported, not fatal; bad mcpServers input is rejected naming the field', async () => {
  const workspace = h.workspace({ '.bareagent/mcp.json': '{ not json' });
  const { result, status } = await run([], {}, workspace);
  expect(result.stopReason).toBe('final_answer');
  expect(status.mcpServers).toEqual([{ name: '.bareagent/mcp.json', tools: 0, error: expect.stringContaining('not valid JSON') }]);
  await expect(h.execute({ prompt: 'x', mcpServers: { 'bad name!': { command: 'x' } } })).rejects.toMatchObject({
    cause: { type: 'InvalidInput', message: expect.stringContaining('mcpServers') },
  });
  await expect(h.execute({ prompt: 'x', mcpServers: { s: { url: 'ftp://x' } } })).rejects.toMatchObject({
    cause: { type: 'InvalidInput', message: expect.stringContaining('mcpServers.s') },
  });
});

test('a run without MCP servers offers only the built-in tools', async () => {
  const { requests, status } = await run([], {});
  expect(requests[0]?.body.tools.every((t: { function: { name: string } }) => !t.function.name.startsWith('mcp__'))).toBe(true);
  expect(status.mcpServers).toBeUndefined();
});

test("every MCP call carries the run's idempotency key for it in _meta, at-most-once and repeatable alike", async () => {
  const { result, results: got, status } = await run(
    [[{ id: 'm1', name: 'mcp__meta__once', arguments: {} }, { id: 'm2', name: 'mcp__meta__again', arguments: {} }]],
    { mcpServers: { meta: metaEchoServer() }, permissionMode: 'bypass', sandbox: { network: 'none', readOnlyPaths: META_ECHO_READ_PATHS } },
  );
  expect(result).toMatchObject({ text: 'Done.' });
  expect(status.mcpServers).toEqual([{ name: 'meta', tools: 2 }]);
  const [once, again] = got.map((r) => JSON.parse(r.content) as Record<string, string>);
  expect(once?.['bareagent/callId']).toMatch(/^run-[0-9a-f-]+\/m1$/);
  expect(again?.['bareagent/callId']).toBe(once?.['bareagent/callId']?.replace(/m1$/, 'm2'));
});
