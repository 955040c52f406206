/** The guard's decisions on every tool: modes × tools, unknown tools, rules on the file tools. */
import type { PermissionMode, PermissionRules } from '../../src/common/input';
import { createPolicy, KNOWN_TOOL_NAMES, type PermissionBehavior, type PermissionDecision, type PermissionPolicy } from '../../src/loop/permissions';

export const MODES: readonly PermissionMode[] = ['default', 'auto', 'plan', 'bypass'];

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

export type Guard = (policy: PermissionPolicy, tool: string, input: unknown) => PermissionDecision;

export function checkWith(guard: Guard) {
  return (mode: PermissionMode, tool: string, argument = '', rules: PermissionRules = {}): PermissionDecision =>
    guard(createPolicy(mode, rules), tool, inputFor(tool, argument));
}

export type ByMode = Record<PermissionMode, PermissionBehavior>;
export const every = (behavior: PermissionBehavior): ByMode => ({ default: behavior, auto: behavior, plan: behavior, bypass: behavior });

export function describeSharedGuardDecisions(guard: Guard): void {
  const check = checkWith(guard);
  describe('mode × tool, no rules (README, Security model)', () => {
    const table: Array<[tool: string, argument: string, expected: ByMode]> = [
      ['read_file', 'src/a.ts', every('allow')],
      ['glob', 'src/**/*.ts', every('allow')],
      ['grep', 'TODO', every('allow')],
      ['todo_read', '', every('allow')], // no such tool: the loop answers `Unknown tool`
      ['edit_file', 'src/a.ts', { default: 'allow', auto: 'allow', plan: 'deny', bypass: 'allow' }],
      ['write_file', 'src/a.ts', { default: 'ask', auto: 'allow', plan: 'deny', bypass: 'allow' }],
      ['subagent', 'review the diff', { default: 'allow', auto: 'allow', plan: 'allow', bypass: 'allow' }],
      ['todo_write', '', every('allow')], // no such tool either: nothing to ask about
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

    test('known names: the schema tools, final_answer among them, and nothing else', () => {
      expect([...KNOWN_TOOL_NAMES].sort()).toEqual(
        ['background_run', 'bash', 'edit_file', 'final_answer', 'glob', 'grep', 'read_file', 'subagent', 'write_file'].sort(),
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
}
