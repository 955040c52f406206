import { guardSettingsFiles, isSettingsPath } from '../../src/loop/settings-files';
import { checkPermission, createPolicy } from '../../src/loop/permissions';
import type { PermissionMode } from '../../src/common/input';

const guard = (mode: PermissionMode, tool: string, input: unknown, rules: { allow?: string[]; deny?: string[] } = {}) => {
  const policy = createPolicy(mode, rules);
  return guardSettingsFiles(policy, tool, input, checkPermission(policy, tool, input)).behavior;
};

test('every spelling of a settings or instruction path is one', () => {
  for (const p of ['.bareagent/settings.json', './.bareagent/settings.json', 'sub/../.bareagent/mcp.json', './/.bareagent//x', '.BareAgent/settings.json', 'AGENTS.md', './AGENTS.md', 'pkg/AGENTS.md', 'pkg/x/../CLAUDE.md', 'agents.md', 'Claude.MD', 'sub/.bareagent/settings.json', ' .bareagent/settings.json']) {
    expect([p, isSettingsPath(p)]).toEqual([p, true]);
  }
  for (const p of ['bareagent/settings.json', '.bareagent-notes.md', 'AGENTS.md.bak', 'docs/agents.txt', 'src/a.ts', '.bareagentx/settings.json']) {
    expect([p, isSettingsPath(p)]).toEqual([p, false]);
  }
});

test('writes and edits of them ask in default and auto, allow rules included; plan and deny rules deny; bypass runs them', () => {
  const edit = { file_path: './.bareagent/settings.json', old_text: 'a', new_text: 'b' };
  const write = { file_path: 'sub/AGENTS.md', content: 'x' };
  for (const [tool, input] of [['edit_file', edit], ['write_file', write]] as const) {
    expect(guard('default', tool, input)).toBe('ask');
    expect(guard('auto', tool, input)).toBe('ask');
    expect(guard('auto', tool, input, { allow: [tool] })).toBe('ask');
    expect(guard('default', tool, input, { allow: [`${tool}(${input.file_path})`] })).toBe('ask');
    expect(guard('plan', tool, input)).toBe('deny');
    expect(guard('bypass', tool, input)).toBe('allow');
    expect(guard('bypass', tool, input, { deny: [tool] })).toBe('deny');
    expect(guard('default', tool, input, { deny: [tool] })).toBe('deny');
  }
  // Other files keep their rules: edit_file never asks, write_file asks in default only.
  expect(guard('default', 'edit_file', { file_path: 'src/a.ts', old_text: 'a', new_text: 'b' })).toBe('allow');
  expect(guard('auto', 'write_file', { file_path: 'src/a.ts', content: 'x' })).toBe('allow');
  // Reading them never asks.
  expect(guard('default', 'read_file', { file_path: '.bareagent/settings.json' })).toBe('allow');
});
