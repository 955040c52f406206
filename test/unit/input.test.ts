import { parseAgentRunInput, type ParsedInput } from '../../src/common/input';

const PREFIX = 'Invalid agentRun input: ';

function messageOf(raw: unknown): string {
  const parsed: ParsedInput = parseAgentRunInput(raw);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(raw)} to be rejected`);
  expect(parsed.message.startsWith(PREFIX)).toBe(true);
  return parsed.message.slice(PREFIX.length);
}

describe('parseAgentRunInput: defaults (README, Configuration)', () => {
  test('a prompt alone gets every default', () => {
    expect(parseAgentRunInput({ prompt: 'Fix the build' })).toEqual({
      ok: true,
      config: {
        prompt: 'Fix the build',
        maxIterations: 200,
        permissionMode: 'default',
        permissionRules: {},
        approvalTimeout: '15m',
        stream: true,
        budgets: {},
        agentType: 'general-purpose',
        waitForJobs: true,
        depth: 0,
        askHuman: true,
        compaction: {},
        sandbox: { network: 'none', readOnlyPaths: [] },
        repeatedFailure: { warnAt: 3, stopAt: 5 },
        projectInstructions: true,
        trustWorkspaceSettings: false,
        concurrency: { backgroundJobs: 4, subagents: 4 },
        finalAnswer: 'text',
        attachMentionedPaths: 'at',
        attachments: { maxFiles: 8, maxFileChars: 30_000, maxTotalChars: 60_000, imports: false },
        draftFirst: false,
        disallowedTools: [],
      },
    });
  });

  test('given values win over the defaults', () => {
    const input = {
      prompt: 'Fix the build',
      workspace: '/tmp/ws',
      model: 'gpt-test',
      systemPrompt: 'Be brief.',
      maxIterations: 5,
      permissionMode: 'plan',
      permissionRules: { allow: ['bash(npm test*)'], deny: ['write_file(.env)'] },
      approvalTimeout: 30_000,
      stream: false,
      budgets: { maxTokens: 1000, maxCostUsd: 0.5, maxWallClock: '2h' },
      agentType: 'explore',
      waitForJobs: false,
      depth: 2,
      askHuman: false,
      compaction: { thresholdTokens: 1000 },
      acceptance: { command: 'npm test', timeout: 60, maxAttempts: 2 },
      idleTimeout: '5m',
      toolTaskQueue: 'laptop',
      sandbox: { network: { allowHosts: ['registry.npmjs.org', '*.example.com:8443'] }, readOnlyPaths: ['/var/cache/npm'] },
      repeatedFailure: { warnAt: 2, stopAt: 4 },
      projectInstructions: false,
      trustWorkspaceSettings: false,
      concurrency: { backgroundJobs: 2, subagents: 1 },
      modelSettings: { temperature: 0, maxOutputTokens: 100, reasoningEffort: 'high', extraBody: { top_k: 1 } },
      mcpServers: { local: { command: 'mcp-x', args: ['--y'], env: { A: 'b' } }, remote: { url: 'https://mcp.example.com/mcp', headers: {} } },
      finalAnswer: 'tool',
      attachMentionedPaths: 'off',
      attachments: { maxFiles: 1, maxFileChars: 10, maxTotalChars: 20, imports: true },
      draftFirst: true,
      disallowedTools: ['subagent'],
    };
    expect(parseAgentRunInput(input)).toEqual({ ok: true, config: input });
  });

  test.each(['30s', '15m', '2h', '1 day', '500ms', 60_000])('approvalTimeout %j is a duration', (approvalTimeout) => {
    expect(parseAgentRunInput({ prompt: 'x', approvalTimeout }).ok).toBe(true);
  });
});

describe('parseAgentRunInput: rejected input names what is wrong', () => {
  test.each<[string, unknown, string]>([
    ['an unknown field', { prompt: 'x', promt: 'typo' }, 'promt: unknown field'],
    ['every unknown field', { prompt: 'x', foo: 1, bar: 2 }, 'foo: unknown field; bar: unknown field'],
    ['a nested unknown field', { prompt: 'x', budgets: { foo: 1 } }, 'budgets.foo: unknown field'],
    ['a nested unknown field in the rules', { prompt: 'x', permissionRules: { ask: [] } }, 'permissionRules.ask: unknown field'],
    ['an unknown sandbox field', { prompt: 'x', sandbox: { net: 'full' } }, 'sandbox.net: unknown field'],
    ['a relative read-only path', { prompt: 'x', sandbox: { readOnlyPaths: ['cache'] } }, 'sandbox.readOnlyPaths.0: must be an absolute path'],
    ['failure limits the wrong way round', { prompt: 'x', repeatedFailure: { warnAt: 6, stopAt: 5 } }, 'repeatedFailure: warnAt must not be greater than stopAt'],
    ['an unknown network choice', { prompt: 'x', sandbox: { network: 'some' } }, 'sandbox.network: must be "none", "full" or { "allowHosts": ["host", ...] }'],
    ['an empty host allow-list', { prompt: 'x', sandbox: { network: { allowHosts: [] } } }, 'sandbox.network.allowHosts: must name at least one host'],
    [
      'a host that is a URL',
      { prompt: 'x', sandbox: { network: { allowHosts: ['https://x.org/'] } } },
      'sandbox.network.allowHosts.0: must be a host name such as "registry.npmjs.org" or "*.example.com", with an optional :port',
    ],
    ['an empty prompt', { prompt: '' }, 'prompt: must be a non-empty string'],
    ['a blank prompt', { prompt: '  \n ' }, 'prompt: must be a non-empty string'],
    ['a missing prompt', {}, 'prompt: Invalid input: expected string, received undefined'],
    ['a prompt that is not a string', { prompt: 3 }, 'prompt: Invalid input: expected string, received number'],
    ['an unknown permission mode', { prompt: 'x', permissionMode: 'yolo' }, 'permissionMode: Invalid option: expected one of "default"|"auto"|"plan"|"bypass"'],
    ['a permission rule that does not parse', { prompt: 'x', permissionRules: { deny: ['glob', 'bash('] } }, 'permissionRules.deny.1: must be tool, tool(argument) or tool(prefix*)'],
    ['a timeout that is not a duration', { prompt: 'x', approvalTimeout: 'soon' }, 'approvalTimeout: must be a duration such as "30s", "15m" or "2h"'],
    ['maxIterations of 0', { prompt: 'x', maxIterations: 0 }, 'maxIterations: Too small: expected number to be >0'],
  ])('%s', (_what, raw, message) => {
    expect(messageOf(raw)).toBe(message);
  });

  test.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'Fix the build'],
    ['a number', 42],
    ['an array', [{ prompt: 'x' }]],
  ])('non-object input (%s)', (_what, raw) => {
    expect(messageOf(raw)).toBe('(input): expected a JSON object with a "prompt" field');
  });
});

describe('forkFrom', () => {
  test('a workflow id, with an optional run id and step', () => {
    const parsed = parseAgentRunInput({ prompt: 'go on', forkFrom: { workflowId: 'X', step: 2 } });
    expect(parsed).toMatchObject({ ok: true, config: { forkFrom: { workflowId: 'X', step: 2 } } });
  });

  test('bad fields are named', () => {
    expect(messageOf({ prompt: 'go on', forkFrom: { workflowId: '' } })).toBe('forkFrom.workflowId: must be a non-empty workflow id');
    expect(messageOf({ prompt: 'go on', forkFrom: { workflowId: 'X', step: 0 } })).toBe('forkFrom.step: must be a step number, 1 or more');
    expect(messageOf({ prompt: 'go on', forkFrom: { workflowId: 'X', step: 1.5 } })).toMatch(/^forkFrom\.step: /);
    expect(messageOf({ prompt: 'go on', forkFrom: { workflowId: 'X', at: 1 } })).toBe('forkFrom.at: unknown field');
  });
});
