import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bash } from '../../src/activities/tools/bash';
import { editFile } from '../../src/activities/tools/edit-file';
import { glob } from '../../src/activities/tools/glob';
import { grep } from '../../src/activities/tools/grep';
import { readFile } from '../../src/activities/tools/read-file';
import { workspaceRoot } from '../../src/activities/tools/workspace';
import { toolSchemas, type ToolArgs, type ToolName } from '../../src/common/tool-schemas';

/** Tool results written for a model to recover from: each says what went wrong and what to do next. */
const args = <N extends ToolName>(name: N, input: object): ToolArgs<N> => toolSchemas[name].parse(input) as ToolArgs<N>;
const GREET = "function greet(name) {\n  return 'Hello, ' + name;\n}\n\nmodule.exports = { greet };\n";

let root: string;
beforeEach(() => {
  root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'recovery-ws-')));
  writeFileSync(path.join(root, 'greet.js'), GREET);
});

const numberedGreet = () => GREET.split('\n').map((line, i) => `${i + 1}: ${line}`).join('\n');
const miss = (input: object, read?: boolean) => editFile(root, args('edit_file', { file_path: 'greet.js', ...input }), read).then(() => 'edited', (err: Error) => err.message);

describe('edit_file that misses', () => {
  test('keeps "old_text not found in file", says the file was not read, and shows a small file whole, numbered as read_file does', async () => {
    const message = await miss({ old_text: "  return 'Hi, ' + name;", new_text: 'x' }, false);
    expect(message).toBe(
      [
        'old_text not found in file greet.js.',
        'You had not read greet.js in this run: it is shown below. Copy old_text from it exactly.',
        'The closest lines are 2-2.',
        'Line 2 of the file is "  return \'Hello, \' + name;" where old_text has "  return \'Hi, \' + name;".',
        'greet.js, 6 lines, numbered as read_file numbers them (the "12: " prefixes are not part of the file):',
        numberedGreet(),
      ].join('\n'),
    );
    expect(readFileSync(path.join(root, 'greet.js'), 'utf8')).toBe(GREET);
  });

  test("names read_file's line-number prefixes copied into old_text", async () => {
    const message = await miss({ old_text: "2:   return 'Hello, ' + name;\n3: }", new_text: 'x' }, true);
    expect(message).toContain('old_text has read_file\'s line-number prefixes ("12: "): they are not part of the file. Send the same text without them.');
    expect(message).not.toContain('You had not read');
    expect(message).toContain('The closest lines are 2-3.');
  });

  test('names the lines where old_text and the file part: a dropped semicolon', async () => {
    const message = await miss({ old_text: "function greet(name) {\n  return 'Hello, ' + name\n}", new_text: 'x' }, true);
    expect(message).toContain('The closest lines are 1-3.');
    expect(message).toContain(`Line 2 of the file is "  return 'Hello, ' + name;" where old_text has "  return 'Hello, ' + name".`);
    expect(message).not.toContain('Line 1 ');
  });

  test('says when only whitespace differs', async () => {
    const message = await miss({ old_text: "function greet(name) {\nreturn 'Hello, ' + name;", new_text: 'x' });
    expect(message).toContain('Lines 1-2 match it except for whitespace (indentation, line ends); copy them exactly.');
  });

  test('a large file: the closest lines with two of context, or a pointer to read_file when nothing is alike; never the whole file', async () => {
    const big = Array.from({ length: 300 }, (_, i) => `const value${i} = ${i};`).join('\n');
    writeFileSync(path.join(root, 'big.js'), big);
    const near = await editFile(root, args('edit_file', { file_path: 'big.js', old_text: 'const value150 = 151;', new_text: 'x' }), false).catch((err: Error) => err.message);
    expect(near).toContain('You have not read big.js in this run: call read_file on it first and copy old_text from its output.');
    expect(near).toMatch(/The closest lines \((\d+)-\1\):\n/);
    expect(near.split('\n').filter((line) => /^\d+: /.test(line))).toHaveLength(5);
    const far = await editFile(root, args('edit_file', { file_path: 'big.js', old_text: 'zzzzqqqq', new_text: 'x' })).catch((err: Error) => err.message);
    expect(far).toBe('old_text not found in file big.js.\nThe file has 300 lines; read it with read_file to see what it holds.');
  });

  test('a small file is shown whole even when no line is alike, and a missing file points to write_file', async () => {
    const message = await miss({ old_text: 'zzzzqqqq', new_text: 'x' });
    expect(message).toBe(`old_text not found in file greet.js.\ngreet.js, 6 lines, numbered as read_file numbers them (the "12: " prefixes are not part of the file):\n${numberedGreet()}`);
    await expect(editFile(root, args('edit_file', { file_path: 'nope.js', old_text: 'a', new_text: 'b' }))).rejects.toThrow(
      'No such file or directory: nope.js (edit_file changes a file that exists: find the path with glob, or create the file with write_file)',
    );
  });
});

describe('read_file', () => {
  test('a long file: whole lines, the total line count and the offset to read on from; the next page starts there', async () => {
    writeFileSync(path.join(root, 'long.txt'), Array.from({ length: 2000 }, (_, i) => `line ${i + 1} ${'x'.repeat(40)}`).join('\n'));
    const first = await readFile(root, args('read_file', { file_path: 'long.txt' }));
    const [, last] = /\[lines 1-(\d+) of 2000; read on with offset=(\d+)\]$/.exec(first) ?? [];
    expect(Number(last)).toBeGreaterThan(100);
    const next = await readFile(root, args('read_file', { file_path: 'long.txt', offset: Number(last) }));
    expect(next.startsWith(`${Number(last) + 1}: line ${Number(last) + 1} `)).toBe(true);
    expect(await readFile(root, args('read_file', { file_path: 'long.txt', offset: 1990 }))).toMatch(/^1991: line 1991 x+\n[\s\S]*\n2000: line 2000 x+$/);
  });
  test('an offset past the end and an empty file say so', async () => {
    expect(await readFile(root, args('read_file', { file_path: 'greet.js', offset: 50 }))).toBe('[offset 50 is past the end: greet.js has 5 lines]');
    writeFileSync(path.join(root, 'empty.txt'), '');
    expect(await readFile(root, args('read_file', { file_path: 'empty.txt' }))).toBe('[empty file]');
  });
  test('one line longer than the cap is cut and said to be', async () => {
    writeFileSync(path.join(root, 'min.js'), `${'a'.repeat(50_000)}\nsecond\n`);
    const out = await readFile(root, args('read_file', { file_path: 'min.js' }));
    expect(out).toMatch(/\n\[lines 1-1 of 2 \(line 1 cut: it has 50000 characters\); read on with offset=1\]$/);
  });
});

describe('bash', () => {
  test('a long output keeps its head and its tail, and says how much was cut between them', async () => {
    const out = await bash(root, args('bash', { command: 'seq 1 20000; echo FAILED: 3 tests' }));
    expect(out.startsWith('1\n2\n3\n')).toBe(true);
    expect(out.endsWith('19999\n20000\nFAILED: 3 tests\n')).toBe(true);
    expect(out).toMatch(/\n\[output truncated: \d+ characters cut here; the last lines follow\]\n/);
    expect(out.length).toBeLessThan(30_200);
  });
  test('a failing command shows its exit code; a silent success says it passed', async () => {
    expect(await bash(root, args('bash', { command: 'exit 4' }))).toBe('Command failed with exit code 4\n');
    expect(await bash(root, args('bash', { command: 'true' }))).toBe('(no output; exit code 0)');
  });
});

test('empty grep and glob results say what was searched', async () => {
  expect(await grep(root, args('grep', { pattern: 'absent', include: '*.ts' }))).toBe('No matches found for "absent" in the workspace (files named *.ts).');
  expect(await glob(root, args('glob', { pattern: '**/*.py' }))).toBe('No files matched "**/*.py" in the workspace (.git and node_modules are not searched).');
});
