import { bwrapArgs } from '../../src/sandbox/bwrap-args';
import { isHostExecutedPath, nameWritableGit } from '../../src/loop/host-executed';
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

test('a run that lets commands write .git says so at every command question, and only there', () => {
  const ask = { behavior: 'ask' as const, reason: 'the command writes' };
  expect(nameWritableGit('bash', ask).reason).toContain('sandbox.writableGit');
  expect(nameWritableGit('background_run', ask).reason).toContain('sandbox.writableGit');
  expect(nameWritableGit('edit_file', ask)).toBe(ask);
  expect(nameWritableGit('bash', { behavior: 'allow', reason: 'safe' })).toEqual({ behavior: 'allow', reason: 'safe' });
});

test('the sandbox binds what host tools run read-only over the writable workspace, never outside it', () => {
  const args = bwrapArgs({ system: [], maskFiles: [], maskDirs: [], workspace: '/ws', writableWorkspace: true, cwd: '/ws', readOnlyPaths: [], writablePaths: [], network: { kind: 'none' }, env: {}, command: 'true', protectedPaths: ['/ws/.git', '/ws/.envrc', '/etc', '/ws'] });
  const workspaceBind = args.findIndex((arg, i) => arg === '--bind' && args[i + 1] === '/ws');
  const gitBind = args.findIndex((arg, i) => arg === '--ro-bind' && args[i + 1] === '/ws/.git');
  expect(workspaceBind).toBeGreaterThanOrEqual(0);
  expect(gitBind).toBeGreaterThan(workspaceBind);
  expect(args.join(' ')).toContain('--ro-bind /ws/.envrc /ws/.envrc');
  expect(args.join(' ')).not.toContain('--ro-bind /etc /etc');
  expect(args.join(' ')).not.toContain('--ro-bind /ws /ws');
});
