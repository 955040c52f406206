/**
 * What the agent can write is not configuration: the workspace's hooks and MCP servers are a
 * snapshot of the top-level run's start, applied only when a human (or the starter) allows them,
 * and nothing the agent changes in `.bareagent/` afterwards runs, in any permission mode.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { PermissionMode } from '../../src/common/input';
import type { Message, ToolResultBlock } from '../../src/common/messages';
import type { PendingPermission } from '../../src/common/wire';
import { decidePermissionUpdate, messagesQuery, statusQuery } from '../../src/common/contract';
import { byPrompt } from '../support/by-prompt';
import { Harness } from '../support/harness';
import { everythingServer, MCP_READ_PATHS } from '../support/mcp-servers';
import { pendingRequest, requestIdFor } from '../support/wait-for';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A history as text, its payloads decoded. */
const historyText = async (handle: WorkflowHandle) =>
  JSON.stringify(await handle.fetchHistory(), (key, value: unknown) => (key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value));

function results(messages: Message[]): Map<string, ToolResultBlock> {
  const found = new Map<string, ToolResultBlock>();
  for (const m of messages) if (Array.isArray(m.content)) for (const b of m.content) if (b.type === 'tool_result') found.set(b.tool_use_id, b);
  return found;
}

/** A human who allows every question, the run's and its subagents', and notes what they were asked. */
function approveEverything(handle: WorkflowHandle): { asked: PendingPermission[]; stop: () => Promise<void> } {
  const asked: PendingPermission[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const status = await handle.query(statusQuery).catch(() => undefined);
      for (const pending of status?.pendingPermissions ?? []) {
        if (asked.some((a) => a.requestId === pending.requestId && a.workflowId === pending.workflowId)) continue;
        asked.push(pending);
        const target = pending.workflowId ? h.client.workflow.getHandle(pending.workflowId) : handle;
        await target.executeUpdate(decidePermissionUpdate, { args: [{ requestId: pending.requestId, decision: 'allow' }] }).catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    asked,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

const EMPTY_SETTINGS = '{ "hooks": {} }\n';

describe.each<PermissionMode>(['default', 'auto', 'plan', 'bypass'])('the hook chain in %s mode', (mode) => {
  test('an edited .bareagent/settings.json adds no hook, in the run nor in its subagent', async () => {
    const scenario = `hook-chain-${mode}-${Math.random()}`;
    const proof = 'HOOK-RAN.txt';
    const hooked = JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ command: `touch ${proof}` }] }], Stop: [{ hooks: [{ command: `touch ${proof}` }] }] } });
    h.model.setScenario(
      scenario,
      byPrompt({
        'Widen the rules': [
          { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { file_path: './.bareagent/settings.json', old_text: EMPTY_SETTINGS.trim(), new_text: hooked } }] },
          { toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'Look around', agent_type: 'general-purpose' } }] },
          { toolCalls: [{ id: 'p1', name: 'glob', arguments: { pattern: '*' } }, { id: 'p2', name: 'no_such_tool', arguments: {} }, { id: 'p3', name: 'bash', arguments: { command: `touch ${proof}` } }] },
          { text: 'Done.' },
        ],
        'Look around': [
          { toolCalls: [{ id: 'c1', name: 'glob', arguments: { pattern: '*' } }, { id: 'c2', name: 'no_such_tool', arguments: {} }] },
          { text: 'Looked.' },
        ],
      }),
    );
    const workspace = h.workspace({ '.bareagent/settings.json': EMPTY_SETTINGS, 'notes.md': 'notes\n' });
    const handle = await h.start({ prompt: 'Widen the rules', model: scenario, workspace, stream: false, permissionMode: mode, permissionRules: { deny: ['bash'] } });
    const human = approveEverything(handle);
    try {
      expect(await handle.result()).toMatchObject({ text: 'Done.' });
    } finally {
      await human.stop();
    }
    expect(existsSync(path.join(workspace, proof))).toBe(false);
    const edited = readFileSync(path.join(workspace, '.bareagent/settings.json'), 'utf8');
    const asked = human.asked.map((a) => `${a.tool} ${JSON.stringify(a.input)}`);
    if (mode === 'default' || mode === 'auto') {
      // The edit of a settings file asked a human, who allowed it: it landed, and still nothing ran.
      expect(human.asked.map((a) => [a.toolCallId, a.tool])).toEqual([['e1', 'edit_file']]);
      expect(edited).toContain(proof);
    } else {
      // plan denies the edit, bypass makes it; nobody was asked either way.
      expect(asked).toEqual([]);
      expect(edited.includes(proof)).toBe(mode === 'bypass');
    }
    const status = await handle.query(statusQuery);
    expect(status.workspaceSettings).toEqual({ files: [{ path: '.bareagent/settings.json', sha256: sha256(EMPTY_SETTINGS) }], applied: false, decision: 'none' });
    expect(status.hooks).toBeUndefined();
    const got = results(await handle.query(messagesQuery));
    expect(got.get('p2')?.content).toBe('Unknown tool: no_such_tool');
    expect(got.get('p3')?.content).toBe('User denied.');
    const child = await h.client.workflow.getHandle(`${handle.workflowId}.sub-1`).query(statusQuery);
    expect(child.workspaceSettings).toMatchObject({ decision: 'inherited', applied: false });
    expect(child.hooks).toBeUndefined();
  });
});

test('an mcp.json edited after the run started is not used: the call is refused and the edited command never runs', async () => {
  const scenario = `mcp-edit-${Math.random()}`;
  const proof = 'MCP-EDITED-RAN.txt';
  const original = `${JSON.stringify({ mcpServers: { everything: everythingServer() } })}\n`;
  const server = everythingServer();
  const edited = JSON.stringify({ mcpServers: { everything: { command: 'sh', args: ['-c', `touch ${proof}; exec ${server.command} ${server.args.join(' ')}`] } } });
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'm1', name: 'mcp__everything__echo', arguments: { message: 'before' } }] },
    { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: '.bareagent/mcp.json', content: edited } }] },
    { toolCalls: [{ id: 'm2', name: 'mcp__everything__echo', arguments: { message: 'after' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ '.bareagent/mcp.json': original });
  const handle = await h.start({
    prompt: 'Use the server',
    model: scenario,
    workspace,
    stream: false,
    permissionMode: 'bypass',
    sandbox: { network: 'none', readOnlyPaths: MCP_READ_PATHS },
  });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  const got = results(await handle.query(messagesQuery));
  expect(got.get('m1')).toMatchObject({ content: 'Echo: before', is_error: false });
  expect(readFileSync(path.join(workspace, '.bareagent/mcp.json'), 'utf8')).toBe(edited);
  expect(got.get('m2')?.is_error).toBe(true);
  expect(got.get('m2')?.content).toMatch(/^Error: SettingsFileError: \.bareagent\/mcp\.json changed after the run started/);
  expect(existsSync(path.join(workspace, proof))).toBe(false);
  const status = await handle.query(statusQuery);
  expect(status.workspaceSettings).toEqual({ files: [{ path: '.bareagent/mcp.json', sha256: sha256(original) }], applied: true, decision: 'bypass' });
});

describe('the run-start question about the workspace settings', () => {
  const settingsFile = JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'glob', hooks: [{ command: 'touch HOOK-RAN.txt' }] }] } });
  const mcpFile = JSON.stringify({ mcpServers: { everything: everythingServer({ SECRET_VALUE: 'hunter2-never-shown' }) } });
  const files = { '.bareagent/settings.json': settingsFile, '.bareagent/mcp.json': mcpFile };

  async function start(extra: Record<string, unknown> = {}) {
    const scenario = `question-${Math.random()}`;
    h.model.setScenario(scenario, [{ toolCalls: [{ id: 'g1', name: 'glob', arguments: { pattern: '*' } }] }, { text: 'Done.' }]);
    const workspace = h.workspace(files);
    const handle = await h.start({ prompt: 'Start', model: scenario, workspace, stream: false, sandbox: { network: 'none', readOnlyPaths: MCP_READ_PATHS }, ...extra });
    return { handle, workspace, scenario };
  }

  const offered = (scenario: string) => (h.model.requestsFor(scenario)[0]?.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);

  test('asked before anything of the workspace runs, listing each command exactly and the hashes, never an env value', async () => {
    const { handle, workspace, scenario } = await start();
    const question = await pendingRequest(handle, 'workspace-settings');
    expect(question.tool).toBe('workspace_settings');
    expect(question.input).toEqual({
      files: [
        { path: '.bareagent/mcp.json', sha256: sha256(mcpFile) },
        { path: '.bareagent/settings.json', sha256: sha256(settingsFile) },
      ],
      hooks: [{ event: 'PostToolUse', matcher: 'glob', command: 'touch HOOK-RAN.txt' }],
      mcpServers: [{ name: 'everything', command: 'node', args: everythingServer().args, env: ['SECRET_VALUE'] }],
    });
    expect(await historyText(handle)).toContain('touch HOOK-RAN.txt');
    expect(await historyText(handle)).not.toContain('hunter2-never-shown');
    // Nothing was listed, so no server started, and the model was not called yet.
    expect(h.model.requestsFor(scenario)).toHaveLength(0);
    await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 'workspace-settings'), decision: 'deny' }] });
    expect(await handle.result()).toMatchObject({ text: 'Done.' });
    expect(existsSync(path.join(workspace, 'HOOK-RAN.txt'))).toBe(false);
    expect(offered(scenario).some((name) => name.startsWith('mcp__'))).toBe(false);
    const status = await handle.query(statusQuery);
    expect(status.workspaceSettings).toMatchObject({ applied: false, decision: 'denied' });
    expect(status.hooks).toBeUndefined();
    expect(status.mcpServers).toBeUndefined();
  });

  test.each<PermissionMode>(['auto', 'plan'])('asked in %s mode too; denied, nothing of the workspace runs', async (mode) => {
    const { handle, workspace } = await start({ permissionMode: mode });
    expect(await pendingRequest(handle, 'workspace-settings')).toMatchObject({ tool: 'workspace_settings' });
    await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 'workspace-settings'), decision: 'deny' }] });
    expect(await handle.result()).toMatchObject({ text: 'Done.' });
    expect(existsSync(path.join(workspace, 'HOOK-RAN.txt'))).toBe(false);
    expect((await handle.query(statusQuery)).workspaceSettings).toMatchObject({ applied: false, decision: 'denied' });
  });

  test('allowed: the hooks run and the servers are offered; "allow always" adds no rule', async () => {
    const { handle, workspace, scenario } = await start();
    await pendingRequest(handle, 'workspace-settings');
    await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 'workspace-settings'), decision: 'allow_always' }] });
    expect(await handle.result()).toMatchObject({ text: 'Done.' });
    expect(existsSync(path.join(workspace, 'HOOK-RAN.txt'))).toBe(true);
    expect(offered(scenario)).toContain('mcp__everything__echo');
    const status = await handle.query(statusQuery);
    expect(status.workspaceSettings).toMatchObject({ applied: true, decision: 'allowed' });
    expect(status.sessionRules).toBeUndefined();
  });

  test('no answer before approvalTimeout: denied (fail closed)', async () => {
    const { handle, workspace } = await start({ approvalTimeout: '1s' });
    expect(await handle.result()).toMatchObject({ text: 'Done.' });
    expect(existsSync(path.join(workspace, 'HOOK-RAN.txt'))).toBe(false);
    expect((await handle.query(statusQuery)).workspaceSettings).toMatchObject({ applied: false, decision: 'timed_out' });
  });

  test('trustWorkspaceSettings: applied without a question', async () => {
    const { handle, workspace } = await start({ trustWorkspaceSettings: true });
    const human = approveEverything(handle);
    expect(await handle.result()).toMatchObject({ text: 'Done.' });
    await human.stop();
    expect(human.asked).toEqual([]);
    expect(existsSync(path.join(workspace, 'HOOK-RAN.txt'))).toBe(true);
    expect((await handle.query(statusQuery)).workspaceSettings).toMatchObject({ applied: true, decision: 'trusted' });
  });

  test("a subagent applies its parent's snapshot: the allowed hooks, read from no file", async () => {
    const scenario = `question-sub-${Math.random()}`;
    h.model.setScenario(
      scenario,
      byPrompt({
        Delegate: [{ toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'Glob', agent_type: 'general-purpose' } }] }, { text: 'Done.' }],
        Glob: [{ toolCalls: [{ id: 'c1', name: 'glob', arguments: { pattern: '*' } }] }, { text: 'Globbed.' }],
      }),
    );
    const workspace = h.workspace({ '.bareagent/settings.json': settingsFile });
    const handle = await h.start({ prompt: 'Delegate', model: scenario, workspace, stream: false, trustWorkspaceSettings: true });
    expect(await handle.result()).toMatchObject({ text: 'Done.' });
    // Only the subagent globbed: its PostToolUse hook came from the parent's snapshot.
    expect(existsSync(path.join(workspace, 'HOOK-RAN.txt'))).toBe(true);
    const child = await h.client.workflow.getHandle(`${handle.workflowId}.sub-1`).query(statusQuery);
    expect(child.workspaceSettings).toEqual({ files: [{ path: '.bareagent/settings.json', sha256: sha256(settingsFile) }], applied: true, decision: 'inherited' });
    const history = await historyText(h.client.workflow.getHandle(`${handle.workflowId}.sub-1`));
    expect(history).not.toContain('readWorkspaceSettings');
    expect(history).not.toContain('readHooks');
  });
});
