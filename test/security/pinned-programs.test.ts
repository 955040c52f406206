/**
 * A program that a trusted setting names is pinned like the setting: the hook script and the MCP
 * server's file the human allowed at the run's start are the only ones that run. The red team's
 * chain: a `PreToolUse` hook `bash scripts/check.sh` allowed at the question, `deny: ["bash"]`, the
 * agent edits the script with `edit_file` (which never asks), and the next `read_file` ran it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pinnedCopies } from '../../src/activities/settings/pinned-copies';
import { filesNamedByCommand, pinFiles } from '../../src/activities/settings/pinned-programs';
import { DEFAULT_SANDBOX_REQUEST, runShell } from '../../src/sandbox/shell';
import { decidePermissionUpdate, messagesQuery, statusQuery, stepsQuery } from '../../src/common/contract';
import type { Message, ToolResultBlock } from '../../src/common/messages';
import { Harness } from '../support/harness';
import { MCP_READ_PATHS } from '../support/mcp-servers';
import { pendingRequest } from '../support/wait-for';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function results(messages: Message[]): Map<string, ToolResultBlock> {
  const found = new Map<string, ToolResultBlock>();
  for (const m of messages) if (Array.isArray(m.content)) for (const b of m.content) if (b.type === 'tool_result') found.set(b.tool_use_id, b);
  return found;
}

test('an edited hook script does not run: the call it guards is blocked and the run says why', async () => {
  const scenario = `pinned-hook-${Math.random()}`;
  const script = 'echo checked >> hook-log.txt\n';
  const evil = 'touch PWNED.txt\n';
  const settings = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'read_file', hooks: [{ command: 'bash scripts/check.sh' }] }] } });
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'notes.md' } }] },
    { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { file_path: 'scripts/check.sh', old_text: script.trim(), new_text: evil.trim() } }] },
    { toolCalls: [{ id: 'r2', name: 'read_file', arguments: { file_path: 'notes.md' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ '.bareagent/settings.json': settings, 'scripts/check.sh': script, 'notes.md': 'notes\n' });
  const handle = await h.start({ prompt: 'Read twice', model: scenario, workspace, stream: false, permissionRules: { deny: ['bash'] } });
  const question = await pendingRequest(handle, 'workspace-settings');
  // The question names the script the hook runs, with its digest.
  expect((question.input as { hooks: unknown[] }).hooks).toEqual([
    { event: 'PreToolUse', matcher: 'read_file', command: 'bash scripts/check.sh', pins: [{ path: 'scripts/check.sh', sha256: sha256(script) }] },
  ]);
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: question.requestId, decision: 'allow' }] });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  // The script as allowed ran once, for r1; the edited one never ran.
  expect(readFileSync(path.join(workspace, 'hook-log.txt'), 'utf8')).toBe('checked\n');
  expect(readFileSync(path.join(workspace, 'scripts/check.sh'), 'utf8')).toBe(evil);
  expect(existsSync(path.join(workspace, 'PWNED.txt'))).toBe(false);
  const got = results(await handle.query(messagesQuery));
  expect(got.get('r1')).toMatchObject({ content: '1: notes', is_error: false });
  // Fails closed: the guarded call did not run.
  expect(got.get('r2')?.is_error).toBe(true);
  expect(got.get('r2')?.content).toMatch(/^Blocked by a PreToolUse hook: the hook `bash scripts\/check\.sh` was not run: scripts\/check\.sh changed after the run started \(sha256 [0-9a-f]{12}… when the human saw it, now sha256 [0-9a-f]{12}…\)$/);
  const steps = await handle.query(stepsQuery);
  expect(steps.find((s) => s.reason === 'hook_refused')?.detail).toMatch(/^PreToolUse hook `bash scripts\/check\.sh` not run: scripts\/check\.sh changed after the run started/);
  expect((await handle.query(statusQuery)).hooks).toBeDefined();
});

test("a hook script that cds to its own folder has its helper pinned there: the agent's edit of it never runs", async () => {
  const scenario = `pinned-cd-${Math.random()}`;
  const check = '#!/bin/bash\ncd "$(dirname "$0")"\nbash lint.sh\n';
  const lint = 'echo linted >> ../hook-log.txt\n';
  const evil = 'touch ../PWNED.txt\n';
  const settings = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'read_file', hooks: [{ command: 'bash scripts/check.sh' }] }] } });
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'notes.md' } }] },
    { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { file_path: 'scripts/lint.sh', old_text: lint.trim(), new_text: evil.trim() } }] },
    { toolCalls: [{ id: 'r2', name: 'read_file', arguments: { file_path: 'notes.md' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ '.bareagent/settings.json': settings, 'scripts/check.sh': check, 'scripts/lint.sh': lint, 'notes.md': 'notes\n' });
  const handle = await h.start({ prompt: 'Read twice', model: scenario, workspace, stream: false, permissionRules: { deny: ['bash'] } });
  const question = await pendingRequest(handle, 'workspace-settings');
  // The helper is pinned where the shell will find it, with its digest, and nothing is left unpinned.
  expect((question.input as { hooks: Array<{ pins: unknown[]; unpinned?: string }> }).hooks[0]).toMatchObject({
    pins: expect.arrayContaining([{ path: 'scripts/lint.sh', sha256: sha256(lint) }]),
  });
  expect((question.input as { hooks: Array<{ unpinned?: string }> }).hooks[0]?.unpinned).toBeUndefined();
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: question.requestId, decision: 'allow' }] });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  // The helper as allowed ran once, for r1; the edited one never ran.
  expect(readFileSync(path.join(workspace, 'hook-log.txt'), 'utf8')).toBe('linted\n');
  expect(readFileSync(path.join(workspace, 'scripts/lint.sh'), 'utf8')).toBe(evil);
  expect(existsSync(path.join(workspace, 'PWNED.txt'))).toBe(false);
  const got = results(await handle.query(messagesQuery));
  expect(got.get('r2')?.is_error).toBe(true);
  expect(got.get('r2')?.content).toMatch(/was not run: scripts\/lint\.sh changed after the run started/);
});

test('a hook whose program the agent creates after the start is refused too (pinned absent)', async () => {
  const scenario = `pinned-absent-${Math.random()}`;
  const settings = JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'write_file', hooks: [{ command: './bin/after-write' }] }] } });
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: 'bin/after-write', content: '#!/bin/sh\ntouch PWNED.txt\n' } }] },
    { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'chmod +x bin/after-write' } }] },
    { toolCalls: [{ id: 'w2', name: 'write_file', arguments: { file_path: 'x.txt', content: 'x' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ '.bareagent/settings.json': settings });
  const handle = await h.start({ prompt: 'Write', model: scenario, workspace, stream: false, permissionMode: 'bypass' });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  expect(existsSync(path.join(workspace, 'x.txt'))).toBe(true);
  expect(existsSync(path.join(workspace, 'PWNED.txt'))).toBe(false);
  const got = results(await handle.query(messagesQuery));
  expect(got.get('w2')?.content).toMatch(/the PostToolUse hook `\.\/bin\/after-write` was not run: bin\/after-write changed after the run started \(absent when the human saw it/);
});

/** A stdio MCP server of the workspace's own: one tool, `ping`; it writes `started-<tag>` when it starts. */
function serverScript(tag: string): string {
  // The real path: the sandbox binds a read path where it really is.
  const sdk = path.join(realpathSync(MCP_READ_PATHS[0] as string), '@modelcontextprotocol/sdk');
  return `require('fs').writeFileSync('started-${tag}', '');
const { McpServer } = require(${JSON.stringify(`${sdk}/dist/cjs/server/mcp.js`)});
const { StdioServerTransport } = require(${JSON.stringify(`${sdk}/dist/cjs/server/stdio.js`)});
const server = new McpServer({ name: 'ws', version: '1.0.0' });
server.registerTool('ping', { description: 'Answers pong.' }, async () => ({ content: [{ type: 'text', text: 'pong ${tag}' }] }));
void server.connect(new StdioServerTransport());
`;
}

test('an MCP stdio server whose workspace script changed is refused, and the changed script never starts', async () => {
  const scenario = `pinned-mcp-${Math.random()}`;
  const original = serverScript('original');
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'm1', name: 'mcp__ws__ping', arguments: {} }] },
    { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: 'tools/server.js', content: serverScript('evil') } }] },
    { toolCalls: [{ id: 'm2', name: 'mcp__ws__ping', arguments: {} }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ '.bareagent/mcp.json': JSON.stringify({ mcpServers: { ws: { command: 'node', args: ['tools/server.js'] } } }), 'tools/server.js': original });
  const handle = await h.start({
    prompt: 'Ping',
    model: scenario,
    workspace,
    stream: false,
    permissionMode: 'auto',
    trustWorkspaceSettings: true,
    sandbox: { network: 'none', readOnlyPaths: MCP_READ_PATHS },
  });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  const got = results(await handle.query(messagesQuery));
  expect(got.get('m1')).toMatchObject({ content: 'pong original', is_error: false });
  expect(got.get('m2')?.is_error).toBe(true);
  expect(got.get('m2')?.content).toMatch(/^Error: PinnedFileChangedError: MCP server "ws" is not used in this run: tools\/server\.js changed after the run started/);
  expect(existsSync(path.join(workspace, 'started-original'))).toBe(true);
  expect(existsSync(path.join(workspace, 'started-evil'))).toBe(false);
  const listing = (await handle.query(statusQuery)).mcpServers as unknown as Array<{ name: string; pins?: unknown }> | undefined;
  expect(JSON.stringify(listing)).toContain(sha256(original));
});

test('a script rewritten between the check and the start still runs as checked: the sandbox binds the checked bytes over it', async () => {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'pinned-copy-')));
  mkdirSync(path.join(root, 'scripts'));
  writeFileSync(path.join(root, 'scripts/check.sh'), 'echo checked\n');
  const { pins } = await pinFiles(root, filesNamedByCommand('bash scripts/check.sh'));
  const pinned = await pinnedCopies(root, pins);
  // The race at its worst: a background job rewrites the script after the check, before the start.
  writeFileSync(path.join(root, 'scripts/check.sh'), 'echo PWNED; touch PWNED\n');
  const shell = { workspace: root, sandbox: DEFAULT_SANDBOX_REQUEST, timeoutMs: 20_000, maxChars: 1000 };
  try {
    const ran = await runShell('bash scripts/check.sh; echo more >> scripts/check.sh; echo "exit $?"', { ...shell, pinnedCopies: pinned.copies });
    expect(ran.sandbox).toBe('bubblewrap');
    expect(ran.stdout).toContain('checked');
    expect(ran.stdout).not.toContain('PWNED');
    expect(ran.stdout).toContain('exit 1'); // the copy is read-only inside
    expect(existsSync(path.join(root, 'PWNED'))).toBe(false);
  } finally {
    await pinned.remove();
  }
  // Not vacuous: without the copies the same command runs the new text.
  expect((await runShell('bash scripts/check.sh', shell)).stdout).toContain('PWNED');
  expect(readFileSync(path.join(root, 'scripts/check.sh'), 'utf8')).toBe('echo PWNED; touch PWNED\n');
});
