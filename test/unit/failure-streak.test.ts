import { errorKindOf } from '../../src/loop/failure-streak';

describe('errorKindOf', () => {
  test.each<[string, string, boolean, string | null]>([
    ['a handler error', 'Error: FileNotFoundError: no such file: a.ts', true, 'FileNotFoundError'],
    ['invalid arguments', 'Error: InvalidArguments: bash: command: required', true, 'InvalidArguments'],
    ['a dotted type', 'Error: Provider.Timeout: took too long', true, 'Provider.Timeout'],
    ['a type with no message', 'Error: WorkspaceEscapeError', true, 'WorkspaceEscapeError'],
    ['a denial', 'User denied.', true, 'UserDenied'],
    ['an unknown tool', 'Unknown tool: frobnicate', true, 'UnknownTool'],
    ['an error in no known form', 'something broke', true, 'Error'],
    ['"Error:" followed by prose, not a type', 'Error: the file is locked', true, 'Error'],
    ['a failing bash command (is_error false)', 'Command failed with exit code 2\nstderr: boom', false, null],
    ['a success that mentions an error', 'Error: FileNotFoundError: quoted in a log', false, null],
    ['an empty success', '', false, null],
  ])('%s', (_what, content, isError, expected) => {
    expect(errorKindOf(content, isError)).toBe(expected);
  });
});
