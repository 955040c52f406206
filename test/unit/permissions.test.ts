import type { PermissionMode, PermissionRules } from '../../src/common/input';
import { isValidRule, parseRule, ruleMatches } from '../../src/loop/permission-rules';
import { checkPermission, createPolicy, type PermissionBehavior, type PermissionDecision } from '../../src/loop/permissions';
import { checkWith, describeSharedGuardDecisions, MODES } from './guard-decisions';

const check = checkWith(checkPermission);

describeSharedGuardDecisions(checkPermission);
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
