import { isHostExecutedPath } from '../../src/loop/host-executed';
import { guardSettingsFiles } from '../../src/loop/settings-files';
import { checkPermission, createPolicy } from '../../src/loop/permissions';
import type { PermissionMode } from '../../src/common/input';

const guard = (mode: PermissionMode, tool: string, input: unknown) => {
  const policy = createPolicy(mode, {});
  return guardSettingsFiles(policy, tool, input, checkPermission(policy, tool, input));
};

test('every spelling of a path host tools run is one, at any depth', () => {
  for (const p of ['.git/config', '.GIT/config', './.git/hooks/pre-commit', 'sub/.git/hooks/x', 'sub/../.Git/HEAD', '.git', 'a/b/.git', '.envrc', 'pkg/.envrc', '.vscode/tasks.json', '.VSCode/settings.json', '.husky/pre-commit', '.idea/workspace.xml', '.devcontainer/devcontainer.json', '.pre-commit-config.yaml', 'lefthook.yml', '.mise.toml', '/ws/.git/config']) {
    expect([p, isHostExecutedPath(p)]).toEqual([p, true]);
  }
  for (const p of ['git/config', '.gitignore', '.gitattributes', '.gitmodules', 'src/.github/x', 'docs/git.md', '.envrc.example', 'a.git/config', '.github/workflows/ci.yml']) {
    expect([p, isHostExecutedPath(p)]).toEqual([p, false]);
  }
});

test('a write or edit of one asks in default and auto, is denied in plan, runs in bypass; reads never ask', () => {
  const edit = { file_path: 'sub/.GIT/config', old_text: 'a', new_text: 'b' };
  const write = { file_path: '.vscode/tasks.json', content: '{}' };
  for (const [tool, input] of [['edit_file', edit], ['write_file', write]] as const) {
    expect(guard('default', tool, input).behavior).toBe('ask');
    expect(guard('auto', tool, input).behavior).toBe('ask');
    expect(guard('plan', tool, input).behavior).toBe('deny');
    expect(guard('bypass', tool, input).behavior).toBe('allow');
  }
  expect(guard('default', 'edit_file', edit).reason).toContain("run by tools on the user's machine");
  expect(guard('default', 'read_file', { file_path: '.git/config' }).behavior).toBe('allow');
});
