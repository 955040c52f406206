import { touchedDirectories, workspaceRelative } from '../../src/loop/instruction-dirs';

const call = (name: string, input: unknown) => ({ id: name, name, input });

test('the directories a round touched, with every directory above them, never the root', () => {
  expect(
    touchedDirectories(
      [
        call('read_file', { file_path: 'src/parser/lexer.ts' }),
        call('write_file', { file_path: 'README.md' }),
        call('grep', { pattern: 'x', path: 'docs' }),
        call('glob', { pattern: '*.ts' }),
        call('bash', { command: 'cat lib/a.js' }),
      ],
      '/ws',
    ),
  ).toEqual(['src', 'src/parser', 'docs']);
});

test('absolute paths count inside the workspace only; .. cannot climb out', () => {
  expect(touchedDirectories([call('edit_file', { file_path: '/ws/pkg/a/b.ts' })], '/ws')).toEqual(['pkg', 'pkg/a']);
  expect(touchedDirectories([call('edit_file', { file_path: '/etc/passwd' })], '/ws')).toEqual([]);
  expect(touchedDirectories([call('read_file', { file_path: '/wsx/a/b.ts' })], '/ws')).toEqual([]);
  expect(workspaceRelative('../outside', '/ws')).toBeUndefined();
  expect(workspaceRelative('a/./b/../c', '/ws')).toBe('a/c');
  expect(touchedDirectories([call('read_file', 'not an object')], '/ws')).toEqual([]);
});
