import { actionFingerprint, canonicalArgs, evidenceHash, normalizeToolName } from '../../src/loop/fingerprint';

describe('actionFingerprint', () => {
  const base = actionFingerprint('grep', { pattern: 'TODO', path: 'src' });

  test('is a 16-digit hex string, the same for the same action every time', () => {
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(actionFingerprint('grep', { pattern: 'TODO', path: 'src' })).toBe(base);
  });

  test.each<[string, string, unknown]>([
    ['tool name case and padding', '  GREP ', { pattern: 'TODO', path: 'src' }],
    ['key order', 'grep', { path: 'src', pattern: 'TODO' }],
    ['whitespace around and inside strings', 'grep', { pattern: '  TODO ', path: 'src\n' }],
    ['an undefined field', 'grep', { pattern: 'TODO', path: 'src', glob: undefined }],
  ])('ignores %s', (_what, tool, input) => {
    expect(actionFingerprint(tool, input)).toBe(base);
  });

  test.each<[string, string, unknown]>([
    ['another tool', 'glob', { pattern: 'TODO', path: 'src' }],
    ['another argument value', 'grep', { pattern: 'FIXME', path: 'src' }],
    ['case inside an argument', 'grep', { pattern: 'todo', path: 'src' }],
    ['a number for a string', 'grep', { pattern: 'TODO', path: 'src', limit: 10 }],
    ['an extra field', 'grep', { pattern: 'TODO', path: 'src', glob: '*.ts' }],
  ])('tells apart %s', (_what, tool, input) => {
    expect(actionFingerprint(tool, input)).not.toBe(base);
  });

  test('the relevant state is part of the fingerprint; no state and "" are the same', () => {
    const input = { file_path: 'a.ts' };
    expect(actionFingerprint('read_file', input, 'rev-1')).not.toBe(actionFingerprint('read_file', input, 'rev-2'));
    expect(actionFingerprint('read_file', input, 'rev-1')).not.toBe(actionFingerprint('read_file', input));
    expect(actionFingerprint('read_file', input, '')).toBe(actionFingerprint('read_file', input));
  });

  test('the separators keep tool, arguments and state from running into each other', () => {
    expect(actionFingerprint('a', 'b')).not.toBe(actionFingerprint('ab', ''));
    expect(actionFingerprint('a', {}, 'x')).not.toBe(actionFingerprint('a', { x: '' }));
  });
});

describe('canonicalArgs', () => {
  test.each<[string, unknown, string]>([
    ['keys sorted at every depth', { b: 1, a: { d: [2, { z: 1, y: 2 }], c: 'x' } }, '{"a":{"c":"x","d":[2,{"y":2,"z":1}]},"b":1}'],
    ['strings trimmed, whitespace runs collapsed', { command: '  npm   test\t-- --watch \n' }, '{"command":"npm test -- --watch"}'],
    ['numbers and booleans as they are', { timeout: 30, ratio: 0.5, all: false }, '{"all":false,"ratio":0.5,"timeout":30}'],
    ['integer-like keys sorted as text', { 10: 'a', 2: 'b' }, '{"10":"a","2":"b"}'],
    ['array order kept', ['b', 'a'], '["b","a"]'],
    ['null and undefined as null', [null, undefined], '[null,null]'],
    ['a raw (unparsed) argument string', ' {"command": ', '"{\\"command\\":"'],
    ['no input at all', undefined, 'null'],
  ])('%s', (_what, value, expected) => {
    expect(canonicalArgs(value)).toBe(expected);
  });

  test('a circular value does not recurse forever', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(canonicalArgs(cyclic)).toBe('{"a":1,"self":"[circular]"}');
  });

  test('a shared (not circular) object is rendered both times', () => {
    const shared = { x: 1 };
    expect(canonicalArgs({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  test('normalizeToolName trims and lowercases', () => {
    expect(normalizeToolName(' Read_File\n')).toBe('read_file');
  });
});

describe('evidenceHash', () => {
  test('the same content, the same hash; any change, even whitespace, is new evidence', () => {
    const result = '3: const x = 1;\n';
    expect(evidenceHash(result)).toBe(evidenceHash('3: const x = 1;\n'));
    expect(evidenceHash(result)).not.toBe(evidenceHash('3: const x = 1; \n'));
    expect(evidenceHash(result)).toMatch(/^[0-9a-f]{16}$/);
  });
});
