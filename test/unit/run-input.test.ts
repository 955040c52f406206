import { buildRunInput } from '../../src/cli/run-input';
import { UsageError } from '../../src/runs/usage-error';
import { forkInput } from '../../src/runs/fork-input';
import { settingsQuestionLines } from '../../src/cli/settings-question';

test('--network and --read-path become the run sandbox', () => {
  expect(buildRunInput('x', { workspace: '/tmp', network: 'registry.npmjs.org, *.github.com', readPath: ['/var/cache'] })).toMatchObject({
    sandbox: { network: { allowHosts: ['registry.npmjs.org', '*.github.com'] }, readOnlyPaths: ['/var/cache'] },
  });
  expect(buildRunInput('x', { workspace: '/tmp', network: 'full' })).toMatchObject({ sandbox: { network: 'full' } });
  expect(buildRunInput('x', { workspace: '/tmp' })).not.toHaveProperty('sandbox');
});

test('a host that is not a host name is a usage error naming the field', () => {
  expect(() => buildRunInput('x', { workspace: '/tmp', network: 'https://evil/' })).toThrow(UsageError);
  expect(() => buildRunInput('x', { workspace: '/tmp', network: 'https://evil/' })).toThrow(/^--network: must be a host name/);
});

test('--no-project-instructions turns the AGENTS.md reading off', () => {
  expect(buildRunInput('x', { workspace: '/tmp', projectInstructions: false })).toMatchObject({ projectInstructions: false });
  expect(buildRunInput('x', { workspace: '/tmp', projectInstructions: true })).not.toHaveProperty('projectInstructions');
});

test('--trust-workspace vouches for the workspace settings', () => {
  expect(buildRunInput('x', { workspace: '/tmp', trustWorkspace: true })).toMatchObject({ trustWorkspaceSettings: true });
  expect(buildRunInput('x', { workspace: '/tmp' })).not.toHaveProperty('trustWorkspaceSettings');
});

test('the run-start question about workspace settings shows every command, quoted so that no control character hides a part', () => {
  const lines = settingsQuestionLines('workspace_settings', {
    files: [{ path: '.bareagent/settings.json', sha256: 'ab'.repeat(32) }],
    hooks: [{ event: 'PreToolUse', matcher: 'bash', command: 'ls\x1b[2K\rtouch x' }],
    mcpServers: [{ name: 'fs', command: 'node', args: ['srv.js'], env: ['TOKEN'] }, { name: 'web', url: 'https://mcp.example/', headers: ['Authorization'] }],
  });
  expect(lines.slice(1)).toEqual([
    '  hook PreToolUse(bash): "ls\\u001b[2K\\rtouch x"',
    '  MCP server fs: command ["node","srv.js"] (env TOKEN)',
    '  MCP server web: url "https://mcp.example/" (header Authorization)',
    `  .bareagent/settings.json sha256 ${'ab'.repeat(32)}`,
  ]);
  expect(lines.join('\n')).not.toContain('\x1b');
  expect(settingsQuestionLines('bash', { command: 'ls' })).toEqual([]);
  // An editor's servers alone: named as the client's, not the workspace's.
  expect(settingsQuestionLines('workspace_settings', { files: [], clientMcpServers: [{ name: 'echo', command: 'node', args: ['echo.js'], env: ['TOKEN'] }] })).toEqual([
    "The client that started this run (an editor) offers MCP servers; allowing runs them in the run's sandbox:",
    '  MCP server echo: command ["node","echo.js"] (env TOKEN)',
  ]);
});

test('--max-tokens, --max-cost and --max-wall-clock become the budgets; a bad one names its field', () => {
  expect(buildRunInput('x', { workspace: '/tmp', maxTokens: '5000', maxCost: '0.5', maxWallClock: '10m' })).toMatchObject({
    budgets: { maxTokens: 5000, maxCostUsd: 0.5, maxWallClock: '10m' },
  });
  expect(buildRunInput('x', { workspace: '/tmp' })).not.toHaveProperty('budgets');
  expect(() => buildRunInput('x', { workspace: '/tmp', maxTokens: 'lots' })).toThrow(/^--max-tokens must be a positive integer$/);
});

test('--notify becomes the run webhook; a URL that is not http(s) is a usage error naming the field', () => {
  expect(buildRunInput('x', { workspace: '/tmp', notify: 'https://hooks.example/abc' })).toMatchObject({ notify: { webhook: 'https://hooks.example/abc' } });
  expect(() => buildRunInput('x', { workspace: '/tmp', notify: 'ftp://hooks.example/abc' })).toThrow(/^--notify: must be an http\(s\) URL/);
  expect(() => buildRunInput('x', { workspace: '/tmp', notify: 'not a url' })).toThrow(UsageError);
});

test("fork and resume flags' validation errors name the flag, not the input field", () => {
  const origin = { workflowId: 'fix-1', status: 'FAILED', input: { workspace: '/tmp', model: 'm' } };
  expect(() => forkInput(origin, 'go on', 2, { maxIterations: '0' })).toThrow(/^--max-iterations must be a positive integer \(at most 100000\)$/);
  expect(() => forkInput(origin, 'go on', 2, { maxTokens: 'lots' })).toThrow(/^--max-tokens must be a positive integer$/);
  expect(() => forkInput(origin, '   ', 2, {})).toThrow(/^the prompt: /);
  expect(forkInput(origin, 'go on', 2, { maxIterations: '5' })).toMatchObject({ maxIterations: 5, forkFrom: { workflowId: 'fix-1', step: 2 } });
});
