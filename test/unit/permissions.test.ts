import type { PermissionMode, PermissionRules } from '../../src/common/input';
import { isValidRule, parseRule, ruleMatches } from '../../src/loop/permission-rules';
import {
  checkPermission,
  createPolicy,
  KNOWN_TOOL_NAMES,
  type PermissionBehavior,
  type PermissionDecision,
} from '../../src/loop/permissions';

const MODES: readonly PermissionMode[] = ['default', 'auto', 'plan', 'bypass'];

/** The argument each tool's main field carries (mainArgument reads file_path, command, pattern, task). */
function inputFor(tool: string, argument: string): unknown {
  switch (tool) {
    case 'read_file':
    case 'write_file':
    case 'edit_file':
      return { file_path: argument };
    case 'glob':
    case 'grep':
      return { pattern: argument };
    case 'bash':
    case 'background_run':
      return { command: argument, timeout: 30 };
    case 'subagent':
      return { task: argument, agent_type: 'general-purpose' };
    default:
      return {};
  }
}

function check(mode: PermissionMode, tool: string, argument = '', rules: PermissionRules = {}): PermissionDecision {
  return checkPermission(createPolicy(mode, rules), tool, inputFor(tool, argument));
}

type ByMode = Record<PermissionMode, PermissionBehavior>;
const every = (behavior: PermissionBehavior): ByMode => ({ default: behavior, auto: behavior, plan: behavior, bypass: behavior });

describe('mode × tool, no rules (DESIGN.md section 4)', () => {
  const table: Array<[tool: string, argument: string, expected: ByMode]> = [
    ['read_file', 'src/a.ts', every('allow')],
    ['glob', 'src/**/*.ts', every('allow')],
    ['grep', 'TODO', every('allow')],
    ['todo_read', '', every('allow')],
    ['edit_file', 'src/a.ts', { default: 'allow', auto: 'allow', plan: 'deny', bypass: 'allow' }],
    ['write_file', 'src/a.ts', { default: 'ask', auto: 'allow', plan: 'deny', bypass: 'allow' }],
    ['subagent', 'review the diff', { default: 'allow', auto: 'allow', plan: 'allow', bypass: 'allow' }],
    ['todo_write', '', { default: 'ask', auto: 'ask', plan: 'deny', bypass: 'allow' }],
    ['bash', 'npm run build', { default: 'ask', auto: 'allow', plan: 'deny', bypass: 'allow' }],
    ['bash', 'ls -la', every('allow')],
    ['bash', 'rm -rf build', { default: 'ask', auto: 'ask', plan: 'deny', bypass: 'allow' }],
    ['background_run', 'npm run build', { default: 'ask', auto: 'allow', plan: 'deny', bypass: 'allow' }],
    ['background_run', 'git status', every('allow')],
    ['background_run', 'git push --force', { default: 'ask', auto: 'ask', plan: 'deny', bypass: 'allow' }],
    ['frobnicate', 'anything', every('allow')],
  ];
  const cases = table.flatMap(([tool, argument, expected]) =>
    MODES.map((mode) => [tool, argument, mode, expected[mode]] as const),
  );

  test.each(cases)('%s(%s) in %s mode → %s', (tool, argument, mode, expected) => {
    expect(check(mode, tool, argument).behavior).toBe(expected);
  });

  test.each(MODES)('safe tools never ask, edit_file never asks, bypass never asks (%s)', (mode) => {
    for (const tool of ['read_file', 'glob', 'grep', 'todo_read', 'edit_file']) {
      expect(check(mode, tool, 'x').behavior).not.toBe('ask');
    }
    if (mode === 'bypass') {
      for (const tool of KNOWN_TOOL_NAMES) expect(check(mode, tool, 'rm -rf /').behavior).toBe('allow');
    }
  });
});

describe('unknown tools', () => {
  test.each(MODES)('a name the runtime does not know is allowed as "no such tool" in %s mode', (mode) => {
    expect(check(mode, 'frobnicate')).toEqual({ behavior: 'allow', reason: 'no such tool' });
    expect(check(mode, 'frobnicate', '', { deny: ['frobnicate'] })).toEqual({ behavior: 'allow', reason: 'no such tool' });
  });

  test('known names: the schema tools plus background_run, subagent, todo_read, todo_write', () => {
    expect([...KNOWN_TOOL_NAMES].sort()).toEqual(
      ['background_run', 'bash', 'edit_file', 'glob', 'grep', 'read_file', 'subagent', 'todo_read', 'todo_write', 'write_file'].sort(),
    );
  });
});

describe('rules on non-command tools', () => {
  const table: Array<[rules: PermissionRules, tool: string, argument: string, expected: ByMode]> = [
    // write_file(.env) matches exactly ".env".
    [{ deny: ['write_file(.env)'] }, 'write_file', '.env', every('deny')],
    [{ deny: ['write_file(.env)'] }, 'write_file', '.env.local', { default: 'ask', auto: 'allow', plan: 'deny', bypass: 'allow' }],
    [{ allow: ['write_file(.env)'] }, 'write_file', '.env', { default: 'allow', auto: 'allow', plan: 'deny', bypass: 'allow' }],
    [{ allow: ['write_file(src/*)'] }, 'write_file', 'src/a.ts', { default: 'allow', auto: 'allow', plan: 'deny', bypass: 'allow' }],
    [{ allow: ['write_file(src/*)'] }, 'write_file', 'test/a.ts', { default: 'ask', auto: 'allow', plan: 'deny', bypass: 'allow' }],
    // A deny rule is the user's refusal: it wins even for safe tools and in bypass mode.
    [{ deny: ['read_file(.env)'] }, 'read_file', '.env', every('deny')],
    [{ deny: ['read_file(.env)'] }, 'read_file', 'README.md', every('allow')],
    [{ deny: ['glob'] }, 'glob', 'src/**', every('deny')],
    [{ allow: ['glob'] }, 'glob', 'src/**', every('allow')],
    [{ deny: ['edit_file(package.json)'] }, 'edit_file', 'package.json', every('deny')],
    [{ allow: ['subagent'] }, 'subagent', 'any task', { default: 'allow', auto: 'allow', plan: 'allow', bypass: 'allow' }],
    [{ deny: ['subagent'] }, 'subagent', 'any task', every('deny')],
    // Rules name one tool: a glob rule says nothing about grep.
    [{ deny: ['glob'] }, 'grep', 'x', every('allow')],
    // Deny beats allow.
    [{ allow: ['write_file'], deny: ['write_file(.env)'] }, 'write_file', '.env', every('deny')],
  ];
  const cases = table.flatMap(([rules, tool, argument, expected]) =>
    MODES.map((mode) => [JSON.stringify(rules), tool, argument, mode, expected[mode], rules] as const),
  );

  test.each(cases)('%s: %s(%s) in %s mode → %s', (_label, tool, argument, mode, expected, rules) => {
    expect(check(mode, tool, argument, rules).behavior).toBe(expected);
  });
});

describe('bash: deny rule → dangerous → allow rule → auto-safe → ask (default) / allow (auto)', () => {
  const table: Array<[what: string, rules: PermissionRules, command: string, expected: Record<PermissionMode, PermissionDecision>]> = [
    [
      'a deny rule comes before the dangerous patterns',
      { deny: ['bash(rm*)'] },
      'rm -rf build',
      {
        default: { behavior: 'deny', reason: 'deny rule' },
        auto: { behavior: 'deny', reason: 'deny rule' },
        plan: { behavior: 'deny', reason: 'deny rule' },
        bypass: { behavior: 'deny', reason: 'deny rule' },
      },
    ],
    [
      'a deny rule comes before the auto-safe patterns',
      { deny: ['bash(cat .env*)'] },
      'cat .env',
      {
        default: { behavior: 'deny', reason: 'deny rule' },
        auto: { behavior: 'deny', reason: 'deny rule' },
        plan: { behavior: 'deny', reason: 'deny rule' },
        bypass: { behavior: 'deny', reason: 'deny rule' },
      },
    ],
    [
      'a deny rule comes before an allow rule',
      { allow: ['bash(npm run*)'], deny: ['bash(npm run deploy*)'] },
      'npm run deploy -- --prod',
      {
        default: { behavior: 'deny', reason: 'deny rule' },
        auto: { behavior: 'deny', reason: 'deny rule' },
        plan: { behavior: 'deny', reason: 'deny rule' },
        bypass: { behavior: 'deny', reason: 'deny rule' },
      },
    ],
    [
      'the dangerous patterns come before an allow rule',
      { allow: ['bash(rm*)'] },
      'rm -rf build',
      {
        default: { behavior: 'ask', reason: 'dangerous command' },
        auto: { behavior: 'ask', reason: 'dangerous command' },
        plan: { behavior: 'deny', reason: 'plan mode is read-only' },
        bypass: { behavior: 'allow', reason: 'bypass mode' },
      },
    ],
    [
      'an allow rule comes before the auto-safe patterns',
      { allow: ['bash(ls*)'] },
      'ls -la',
      {
        default: { behavior: 'allow', reason: 'allow rule' },
        auto: { behavior: 'allow', reason: 'allow rule' },
        plan: { behavior: 'allow', reason: 'read-only command' },
        bypass: { behavior: 'allow', reason: 'bypass mode' },
      },
    ],
    [
      'an allow rule lets a command run that would ask',
      { allow: ['bash(npm run build*)'] },
      'npm run build -- --watch=false',
      {
        default: { behavior: 'allow', reason: 'allow rule' },
        auto: { behavior: 'allow', reason: 'allow rule' },
        plan: { behavior: 'deny', reason: 'plan mode is read-only' },
        bypass: { behavior: 'allow', reason: 'bypass mode' },
      },
    ],
    [
      'the auto-safe patterns come before the mode',
      {},
      'git status',
      {
        default: { behavior: 'allow', reason: 'read-only command' },
        auto: { behavior: 'allow', reason: 'read-only command' },
        plan: { behavior: 'allow', reason: 'read-only command' },
        bypass: { behavior: 'allow', reason: 'bypass mode' },
      },
    ],
    [
      'anything else asks in default and runs in auto',
      {},
      'npm install left-pad',
      {
        default: { behavior: 'ask', reason: 'command needs confirmation' },
        auto: { behavior: 'allow', reason: 'auto mode' },
        plan: { behavior: 'deny', reason: 'plan mode is read-only' },
        bypass: { behavior: 'allow', reason: 'bypass mode' },
      },
    ],
    [
      'bash(npm test*) matches commands starting with "npm test"',
      { allow: ['bash(npm test*)'] },
      'npm test -- --runInBand',
      {
        default: { behavior: 'allow', reason: 'allow rule' },
        auto: { behavior: 'allow', reason: 'allow rule' },
        // npm test runs the repository's code: not read-only, and plan ignores allow rules.
        plan: { behavior: 'deny', reason: 'plan mode is read-only' },
        bypass: { behavior: 'allow', reason: 'bypass mode' },
      },
    ],
    [
      'an allow prefix does not stretch over a chain',
      { allow: ['bash(npm test*)'] },
      'npm test; curl -o x https://example.com',
      {
        default: { behavior: 'ask', reason: 'command needs confirmation' },
        auto: { behavior: 'allow', reason: 'auto mode' },
        plan: { behavior: 'deny', reason: 'plan mode is read-only' },
        bypass: { behavior: 'allow', reason: 'bypass mode' },
      },
    ],
    [
      'a deny rule catches its command inside a chain',
      { deny: ['bash(git push*)'] },
      'git status && git push origin main',
      {
        default: { behavior: 'deny', reason: 'deny rule' },
        auto: { behavior: 'deny', reason: 'deny rule' },
        plan: { behavior: 'deny', reason: 'deny rule' },
        bypass: { behavior: 'deny', reason: 'deny rule' },
      },
    ],
  ];
  const cases = table.flatMap(([what, rules, command, expected]) =>
    MODES.map((mode) => [what, mode, command, rules, expected[mode]] as const),
  );

  test.each(cases)('%s (%s mode: %s)', (_what, mode, command, rules, expected) => {
    expect(check(mode, 'bash', command, rules)).toEqual(expected);
  });
});

describe('rules for command tools', () => {
  const table: Array<[rules: PermissionRules, tool: string, command: string, expected: PermissionBehavior]> = [
    [{ allow: ['bash(npm run build*)'] }, 'background_run', 'npm run build', 'allow'],
    [{ allow: ['background_run(npm run build*)'] }, 'background_run', 'npm run build', 'allow'],
    [{ allow: ['background_run(npm run build*)'] }, 'bash', 'npm run build', 'ask'],
    [{ deny: ['bash(sleep*)'] }, 'background_run', 'sleep 60', 'deny'],
    [{ deny: ['background_run'] }, 'background_run', 'ls', 'deny'],
    [{ deny: ['background_run'] }, 'bash', 'ls', 'allow'],
    // A bare `bash` allow rule allows every command, chains included (but not dangerous ones).
    [{ allow: ['bash'] }, 'bash', 'npm ci && npm run build', 'allow'],
    [{ allow: ['bash'] }, 'bash', 'sudo rm -rf /', 'ask'],
    // An exact rule matches only the exact text, which may itself be a chain.
    [{ allow: ['bash(make build && make test)'] }, 'bash', 'make build && make test', 'allow'],
    [{ allow: ['bash(make build)'] }, 'bash', 'make build && make deploy', 'ask'],
    // A prefix that contains a chain covers what its author wrote, not more.
    [{ allow: ['bash(cd web && npm run*)'] }, 'bash', 'cd web && npm run build', 'allow'],
    [{ allow: ['bash(cd web && npm run*)'] }, 'bash', 'cd web && npm run build | tee log', 'ask'],
    [{ allow: ['bash(npm run build*)'] }, 'bash', 'npm run build > out.txt', 'ask'],
    [{ allow: ['bash(npm run build*)'] }, 'bash', 'npm run build $(curl evil)', 'ask'],
    [{ allow: ['bash(npm run build*)'] }, 'bash', 'npm run build\ncurl evil', 'ask'],
    [{ deny: ['bash(git push*)'] }, 'bash', 'echo $(git push)', 'deny'],
    [{ deny: ['bash(git push*)'] }, 'bash', 'ls\ngit push', 'deny'],
    [{ deny: ['bash(git push*)'] }, 'bash', 'git pushd', 'deny'],
    [{ deny: ['bash(git push*)'] }, 'bash', 'git pull', 'ask'],
  ];

  test.each(table)('%j: %s(%j) in default mode → %s', (rules, tool, command, expected) => {
    expect(check('default', tool, command, rules).behavior).toBe(expected);
  });
});

describe('permission rules', () => {
  test.each([
    ['bash(npm test*)', { tool: 'bash', prefix: true, argument: 'npm test' }],
    ['write_file(.env)', { tool: 'write_file', prefix: false, argument: '.env' }],
    ['glob', { tool: 'glob', prefix: true, argument: '' }],
    ['glob(*)', { tool: 'glob', prefix: true, argument: '' }],
    ['glob()', { tool: 'glob', prefix: true, argument: '' }],
    ['  bash ( git status )  ', { tool: 'bash', prefix: false, argument: 'git status' }],
    ['bash( npm test* )', { tool: 'bash', prefix: true, argument: 'npm test' }],
  ])('parseRule(%j)', (text, expected) => {
    expect(isValidRule(text)).toBe(true);
    expect(parseRule(text)).toEqual(expected);
  });

  test.each(['', 'bash(', '(npm test*)', '1bash', 'bash(x) y'])('invalid rule %j', (text) => {
    expect(isValidRule(text)).toBe(false);
    expect(() => parseRule(text)).toThrow(/Invalid permission rule/);
    expect(() => createPolicy('default', { allow: [text] })).toThrow(/Invalid permission rule/);
  });

  test.each([
    ['bash(npm test*)', 'bash', 'npm test', true],
    ['bash(npm test*)', 'bash', 'npm test -- --ci', true],
    ['bash(npm test*)', 'bash', '  npm test  ', true],
    ['bash(npm test*)', 'bash', 'npm run test', false],
    ['bash(npm test*)', 'background_run', 'npm test', false],
    ['write_file(.env)', 'write_file', '.env', true],
    ['write_file(.env)', 'write_file', '.env.local', false],
    ['write_file(.env)', 'write_file', 'config/.env', false],
    ['glob', 'glob', 'anything', true],
    ['glob', 'glob', '', true],
    ['glob', 'grep', 'anything', false],
  ])('%s matches %s(%j): %s', (rule, tool, argument, expected) => {
    expect(ruleMatches(parseRule(rule), tool, argument)).toBe(expected);
  });

  test('createPolicy parses both lists and defaults to none', () => {
    expect(createPolicy('auto')).toEqual({ mode: 'auto', allow: [], deny: [] });
    expect(createPolicy('plan', { allow: ['glob'], deny: ['write_file(.env)'] })).toEqual({
      mode: 'plan',
      allow: [{ tool: 'glob', prefix: true, argument: '' }],
      deny: [{ tool: 'write_file', prefix: false, argument: '.env' }],
    });
  });
});
