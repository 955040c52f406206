import { parseAnswer } from '../../src/cli/ask-permission';
import { createPolicy, checkPermission } from '../../src/loop/permissions';
import { sessionRuleFor } from '../../src/loop/session-rules';

test('the rule derived from a call is the call itself, and allows exactly that call again', () => {
  expect(sessionRuleFor('bash', { command: 'npm test' })).toBe('bash(npm test)');
  expect(sessionRuleFor('write_file', { file_path: 'src/a.ts', content: 'x' })).toBe('write_file(src/a.ts)');
  expect(sessionRuleFor('mcp__github__create_issue', { title: 'x' })).toBe('mcp__github__create_issue');
  expect(sessionRuleFor('bash', { command: 'ls *' })).toBeUndefined();
  const policy = createPolicy('default', { allow: [sessionRuleFor('bash', { command: 'npm test' }) as string] });
  expect(checkPermission(policy, 'bash', { command: 'npm test' }).behavior).toBe('allow');
  expect(checkPermission(policy, 'bash', { command: 'npm test -- --watch' }).behavior).toBe('ask');
  expect(checkPermission(policy, 'bash', { command: 'npm test; curl x' }).behavior).toBe('ask');
});

test('the terminal prompt reads y, a and anything else', () => {
  expect(['y', 'YES', 'a', 'always', 'n', '', 'maybe'].map(parseAnswer)).toEqual(['allow', 'allow', 'allow_always', 'allow_always', 'deny', 'deny', 'deny']);
});

test('a blank argument derives no rule (the bare tool would allow every later call)', () => {
  for (const command of ['', ' ', '\t\n']) expect(sessionRuleFor('bash', { command })).toBeUndefined();
  expect(sessionRuleFor('write_file', { file_path: '  ', content: 'x' })).toBeUndefined();
});
