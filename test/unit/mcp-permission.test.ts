import { checkMcpPermission } from '../../src/loop/mcp-permission';
import { isValidRule } from '../../src/loop/permission-rules';
import { createPolicy } from '../../src/loop/permissions';

const write = { name: 'mcp__github__create_issue', effect: 'once' as const };
const read = { name: 'mcp__github__get_issue', effect: 'read' as const };

test('MCP tool names take a trailing glob; built-in ones do not', () => {
  expect(isValidRule('mcp__github__*')).toBe(true);
  expect(isValidRule('mcp__github__create_issue')).toBe(true);
  expect(isValidRule('mcp__github__create_issue({"title":*)')).toBe(true);
  expect(isValidRule('bash*')).toBe(false);
  expect(isValidRule('*')).toBe(false);
});

test('default mode asks for an MCP tool unless its server annotates it read-only', () => {
  const policy = createPolicy('default');
  expect(checkMcpPermission(policy, write, {}).behavior).toBe('ask');
  expect(checkMcpPermission(policy, read, {}).behavior).toBe('allow');
});

test('rules name MCP tools in full or by server glob; deny wins, also over read-only and bypass', () => {
  const policy = createPolicy('default', { allow: ['mcp__github__*'], deny: ['mcp__github__get_issue'] });
  expect(checkMcpPermission(policy, write, {}).behavior).toBe('allow');
  expect(checkMcpPermission(policy, read, {}).behavior).toBe('deny');
  expect(checkMcpPermission(createPolicy('bypass', { deny: ['mcp__github__*'] }), write, {}).behavior).toBe('deny');
  expect(checkMcpPermission(createPolicy('default', { allow: ['mcp__gitlab__*'] }), write, {}).behavior).toBe('ask');
});

test('a rule argument is matched against the arguments as JSON', () => {
  const policy = createPolicy('default', { allow: ['mcp__github__create_issue({"repo":"mine"*)'] });
  expect(checkMcpPermission(policy, write, { repo: 'mine', title: 'x' }).behavior).toBe('allow');
  expect(checkMcpPermission(policy, write, { repo: 'theirs' }).behavior).toBe('ask');
});

test('plan mode refuses MCP tools that may write; auto and bypass run them', () => {
  expect(checkMcpPermission(createPolicy('plan'), write, {}).behavior).toBe('deny');
  expect(checkMcpPermission(createPolicy('plan'), read, {}).behavior).toBe('allow');
  expect(checkMcpPermission(createPolicy('auto'), write, {}).behavior).toBe('allow');
  expect(checkMcpPermission(createPolicy('bypass'), write, {}).behavior).toBe('allow');
});
