import { isMarkedRunning } from '../support/process-state';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toolSchemas, type ToolArgs, type ToolName } from '../../src/common/tool-schemas';
import { bash } from '../../src/activities/tools/bash';
import { braceSize } from '../../src/activities/tools/brace-size';
import { editFile } from '../../src/activities/tools/edit-file';
import { glob } from '../../src/activities/tools/glob';
import { grep } from '../../src/activities/tools/grep';
import { readFile } from '../../src/activities/tools/read-file';
import { writeFile } from '../../src/activities/tools/write-file';
import { workspaceRoot } from '../../src/activities/tools/workspace';

const args = <N extends ToolName>(name: N, input: object): ToolArgs<N> => toolSchemas[name].parse(input) as ToolArgs<N>;

let root: string;
let outside: string;
beforeEach(() => {
  root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'tools-ws-')));
  outside = mkdtempSync(path.join(os.tmpdir(), 'tools-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'src', 'app.ts'), 'const a = 1;\nconst b = 2;\nexport { a, b };\n');
  writeFileSync(path.join(root, 'README.md'), '# Demo\nTODO: write docs\n');
});

describe('read_file', () => {
  test('numbers lines from 1, honours offset and limit', async () => {
    expect(await readFile(root, args('read_file', { file_path: 'src/app.ts' }))).toBe(
      '1: const a = 1;\n2: const b = 2;\n3: export { a, b };',
    );
    expect(await readFile(root, args('read_file', { file_path: 'src/app.ts', offset: 1, limit: 1 }))).toBe('2: const b = 2;\n[lines 2-2 of 3; read on with offset=2]');
  });
  test('a missing file, a directory and a binary file are clear errors', async () => {
    await expect(readFile(root, args('read_file', { file_path: 'nope.txt' }))).rejects.toMatchObject({
      name: 'FileNotFoundError',
      message: 'No such file or directory: nope.txt',
    });
    await expect(readFile(root, args('read_file', { file_path: 'src' }))).rejects.toMatchObject({ name: 'IsADirectoryError' });
    writeFileSync(path.join(root, 'blob.bin'), Buffer.from([0x89, 0x50, 0, 1, 2]));
    await expect(readFile(root, args('read_file', { file_path: 'blob.bin' }))).rejects.toThrow('Binary file, not shown: blob.bin');
  });
  test('a huge file comes back capped', async () => {
    writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(100).concat('\n').repeat(5000));
    const out = await readFile(root, args('read_file', { file_path: 'big.txt' }));
    expect(out.length).toBeLessThan(31_000);
    // Whole lines, the total, and where to read on.
    expect(out).toMatch(/\n\d+: x{100}\n\[lines 1-(\d+) of 5000; read on with offset=\1\]$/);
  });
});

describe('confinement', () => {
  test.each([
    ['../escape.txt', 'is outside the workspace'],
    ['src/../../escape.txt', 'is outside the workspace'],
    ['/etc/passwd', 'use a path relative to the workspace'],
    ['~/.ssh/id_rsa', '~ is not allowed'],
  ])('read_file refuses %s', async (file_path, message) => {
    await expect(readFile(root, args('read_file', { file_path }))).rejects.toMatchObject({
      name: 'WorkspaceEscapeError',
      message: expect.stringContaining(message),
    });
  });
  test('a symlink that leads out is refused for reading and writing, one that stays in is fine', async () => {
    symlinkSync(outside, path.join(root, 'link-out'));
    symlinkSync(path.join(root, 'src'), path.join(root, 'link-in'));
    await expect(readFile(root, args('read_file', { file_path: 'link-out/secret.txt' }))).rejects.toThrow('a symlink leads out');
    await expect(writeFile(root, args('write_file', { file_path: 'link-out/new.txt', content: 'x' }))).rejects.toThrow(
      'a symlink leads out',
    );
    expect(await readFile(root, args('read_file', { file_path: 'link-in/app.ts', limit: 1 }))).toMatch(/^1: const a = 1;\n\[lines 1-1 of 3/);
  });
  test('write_file, edit_file, glob and grep refuse escapes too', async () => {
    await expect(writeFile(root, args('write_file', { file_path: '../x.txt', content: 'x' }))).rejects.toThrow('outside the workspace');
    await expect(editFile(root, args('edit_file', { file_path: '/etc/hosts', old_text: 'a', new_text: 'b' }))).rejects.toThrow(
      'outside the workspace',
    );
    await expect(glob(root, args('glob', { pattern: '../**/*' }))).rejects.toThrow('must stay inside the workspace');
    await expect(glob(root, args('glob', { pattern: '*', path: '..' }))).rejects.toThrow('outside the workspace');
    await expect(grep(root, args('grep', { pattern: 'secret', path: '../' }))).rejects.toThrow('outside the workspace');
  });
  test('write_file through a dangling symlink that points out is refused, and nothing is created outside', async () => {
    symlinkSync(path.join(outside, 'planted.txt'), path.join(root, 'notes.txt'));
    symlinkSync(path.join(outside, 'newdir'), path.join(root, 'build'));
    await expect(writeFile(root, args('write_file', { file_path: 'notes.txt', content: 'x' }))).rejects.toThrow('a symlink leads out');
    await expect(writeFile(root, args('write_file', { file_path: 'build/out.js', content: 'x' }))).rejects.toThrow('a symlink leads out');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    // A dangling symlink that stays inside is an ordinary new file.
    symlinkSync(path.join(root, 'later.txt'), path.join(root, 'alias.txt'));
    expect(await writeFile(root, args('write_file', { file_path: 'alias.txt', content: 'in' }))).toBe(`Wrote 2 bytes to alias.txt\nalias.txt now, 1 line, numbered as read_file numbers them (the "12: " prefixes are not part of the file):\n1: in`);
    expect(readFileSync(path.join(root, 'later.txt'), 'utf8')).toBe('in');
  });
  test('glob lists nothing outside: not through a symlinked directory, not with ".." hidden in braces or extglobs', async () => {
    symlinkSync(outside, path.join(root, 'link-out'));
    expect(await glob(root, args('glob', { pattern: 'link-out/*' }))).toBe('No files matched "link-out/*" in the workspace (.git and node_modules are not searched).');
    expect(await glob(root, args('glob', { pattern: 'link-out/**' }))).toMatch(/^No files matched /);
    for (const pattern of ['{x,..}/**', '{a/..,..}/*', '@(..)/*', '+(..)/**']) {
      await expect(glob(root, args('glob', { pattern }))).rejects.toThrow('must stay inside the workspace');
    }
    expect(await glob(root, args('glob', { pattern: 'src/*.{ts,js}' }))).toBe('src/app.ts');
  });
});

describe('symlinks that stay inside', () => {
  test('a symlinked file and a symlinked directory inside the workspace are read, written and grepped as usual', async () => {
    symlinkSync('src/app.ts', path.join(root, 'app-alias.ts'));
    symlinkSync(path.join(root, 'src'), path.join(root, 'link-in'));
    expect(await readFile(root, args('read_file', { file_path: 'app-alias.ts', limit: 1 }))).toMatch(/^1: const a = 1;\n\[lines 1-1 of 3/);
    expect(await editFile(root, args('edit_file', { file_path: 'app-alias.ts', old_text: 'a = 1', new_text: 'a = 3' }))).toMatch(
      /^Edited app-alias.ts\napp-alias.ts now, 3 lines, numbered as read_file numbers them .*\n1: const a = 3;\n/,
    );
    expect(readFileSync(path.join(root, 'src', 'app.ts'), 'utf8')).toContain('const a = 3;');
    expect(await writeFile(root, args('write_file', { file_path: 'link-in/new/deep.txt', content: 'x' }))).toMatch(/^Wrote 1 bytes to link-in\/new\/deep.txt\n/);
    expect(readFileSync(path.join(root, 'src', 'new', 'deep.txt'), 'utf8')).toBe('x');
    expect(await grep(root, args('grep', { pattern: 'const b', path: 'link-in' }))).toBe('link-in/app.ts:2: const b = 2;');
  });
});

describe('write_file and edit_file', () => {
  test('write_file creates parent folders', async () => {
    expect(await writeFile(root, args('write_file', { file_path: 'docs/new/guide.md', content: 'hello' }))).toBe(
      `Wrote 5 bytes to docs/new/guide.md\ndocs/new/guide.md now, 1 line, numbered as read_file numbers them (the "12: " prefixes are not part of the file):\n1: hello`,
    );
    expect(readFileSync(path.join(root, 'docs/new/guide.md'), 'utf8')).toBe('hello');
  });
  test('edit_file replaces the first match only, says where old_text is still, and says when it is missing', async () => {
    writeFileSync(path.join(root, 'twice.txt'), 'one two one');
    expect(await editFile(root, args('edit_file', { file_path: 'twice.txt', old_text: 'one', new_text: 'ONE' }))).toBe(
      `Edited twice.txt. old_text is still in the file, on line 1: edit_file replaces only its first occurrence, so edit that line too if it should change\ntwice.txt now, 1 line, numbered as read_file numbers them (the "12: " prefixes are not part of the file):\n1: ONE two one`,
    );
    expect(readFileSync(path.join(root, 'twice.txt'), 'utf8')).toBe('ONE two one');
    // A rename: the lines still holding the old name are named; a new_text that holds old_text is not counted.
    writeFileSync(path.join(root, 'user.js'), 'function getName(u) {}\n\nconst a = getName(1);\nmodule.exports = { getName };\n');
    const renamed = await editFile(root, args('edit_file', { file_path: 'user.js', old_text: 'getName', new_text: 'fetchName' }));
    expect(renamed.split('\n')[0]).toBe('Edited user.js. old_text is still in the file, on lines 3, 4: edit_file replaces only its first occurrence, so edit those lines too if they should change');
    writeFileSync(path.join(root, 'grow.txt'), 'a b\n');
    expect(await editFile(root, args('edit_file', { file_path: 'grow.txt', old_text: 'a', new_text: 'a a' }))).toMatch(/^Edited grow\.txt\n/);
    await expect(editFile(root, args('edit_file', { file_path: 'twice.txt', old_text: 'three', new_text: 'x' }))).rejects.toThrow(
      'old_text not found in file',
    );
  });
});

describe('edit_file limits', () => {
  test('a file over 10 MB and an over-long old_text or new_text are refused with clear errors', async () => {
    writeFileSync(path.join(root, 'huge.log'), 'x');
    truncateSync(path.join(root, 'huge.log'), 10 * 1024 * 1024 + 1);
    await expect(editFile(root, args('edit_file', { file_path: 'huge.log', old_text: 'x', new_text: 'y' }))).rejects.toMatchObject({
      name: 'FileTooLargeError',
      message: expect.stringContaining('File is too large to edit: huge.log has 10485761 bytes'),
    });
    const long = 'x'.repeat(1024 * 1024 + 1);
    await expect(editFile(root, args('edit_file', { file_path: 'README.md', old_text: long, new_text: 'y' }))).rejects.toThrow(
      'old_text is too long',
    );
    await expect(editFile(root, args('edit_file', { file_path: 'README.md', old_text: 'TODO', new_text: long }))).rejects.toThrow(
      'new_text is too long',
    );
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toBe('# Demo\nTODO: write docs\n');
  });
});

describe('brace expansion size', () => {
  test.each([
    ['src/**/*.ts', 1, 0],
    ['src/*.{ts,js}', 2, 0],
    ['{a,b}{c,d}', 4, 0],
    ['{a,{b,c}}x', 3, 0],
    ['{x{a,b}y,z}', 3, 0],
    ['{,a}', 2, 0],
    ['{a}', 1, 0],
    ['x{a,b', 1, 0],
    ['\\{a,b}', 1, 0],
    ['{1..10}', 10, 10],
    ['{a..e}', 5, 5],
    ['{0..100..5}', 21, 21],
    ['{01..10}{a,b}', 20, 10],
    ['{{a,b},{c,{d,e}}}{1..3}', 15, 3],
  ])('%s expands to %d patterns, largest range %d', (pattern, alternatives, largestRange) => {
    expect(braceSize(pattern)).toEqual({ alternatives, largestRange });
  });
  test('counts without expanding: a billion alternatives and deep nesting are instant', () => {
    expect(braceSize('{a,b}'.repeat(30)).alternatives).toBe(2 ** 30);
    expect(braceSize(`${'{'.repeat(100_000)}a${'}'.repeat(100_000)}`).alternatives).toBe(1);
  });
});

describe('glob and grep', () => {
  test('glob lists matching files relative to the workspace', async () => {
    expect(await glob(root, args('glob', { pattern: '**/*.ts' }))).toBe('src/app.ts');
    expect(await glob(root, args('glob', { pattern: '*.ts', path: 'src' }))).toBe('src/app.ts');
    expect(await glob(root, args('glob', { pattern: '*.py' }))).toBe('No files matched "*.py" in the workspace (.git and node_modules are not searched).');
  });
  test('glob says how many files matched, and how many it did not show', async () => {
    mkdirSync(path.join(root, 'many/deep'), { recursive: true });
    for (const name of ['a.js', 'b.js', 'deep/c.js', 'notes.md']) writeFileSync(path.join(root, 'many', name), '');
    expect(await glob(root, args('glob', { pattern: 'many/**/*.js' }))).toBe('many/a.js\nmany/b.js\nmany/deep/c.js\n[3 files matched]');
    for (let i = 0; i < 1002; i++) writeFileSync(path.join(root, 'many/deep', `f${i}.txt`), '');
    expect((await glob(root, args('glob', { pattern: 'many/**/*.txt' }))).split('\n').at(-1)).toBe('[1002 files matched; 2 more not shown]');
  });
  test('grep finds lines with path and line number, filters by include', async () => {
    expect(await grep(root, args('grep', { pattern: 'const b' }))).toBe('src/app.ts:2: const b = 2;');
    expect(await grep(root, args('grep', { pattern: 'TODO|const a', include: '*.md' }))).toBe('README.md:2: TODO: write docs');
    expect(await grep(root, args('grep', { pattern: 'zebra' }))).toBe('No matches found for "zebra" in the workspace.');
    await expect(grep(root, args('grep', { pattern: '(' }))).rejects.toThrow('Invalid regular expression');
  });
  test('a grep that finds nothing with a file-name pattern names the glob that lists those files', async () => {
    mkdirSync(path.join(root, 'modules'));
    expect(await grep(root, args('grep', { pattern: '.*\\.js$', path: 'modules' }))).toBe(
      'No matches found for ".*\\\\.js$" in modules. grep searches the text inside files; to list files by name, call glob with pattern "modules/**/*.js".',
    );
    await expect(grep(root, args('grep', { pattern: '*.py' }))).rejects.toThrow('; to list files by name, call glob with pattern "**/*.py".');
    expect(await grep(root, args('grep', { pattern: 'zebra.js' }))).toBe('No matches found for "zebra.js" in the workspace.');
  });
  test('grep takes JS-flavoured patterns where RE2 has the same meaning', async () => {
    expect(await grep(root, args('grep', { pattern: '(?<word>TODO):\\s\\w+' }))).toBe('README.md:2: TODO: write docs');
    expect(await grep(root, args('grep', { pattern: '\\u0054ODO' }))).toBe('README.md:2: TODO: write docs');
    expect(await grep(root, args('grep', { pattern: '^export \\{ a, b \\};$' }))).toBe('src/app.ts:3: export { a, b };');
    // An escaped paren before `?=` is an optional literal paren, not a lookahead.
    expect(await grep(root, args('grep', { pattern: 'a \\(?= 1' }))).toBe('src/app.ts:1: const a = 1;');
    await expect(grep(root, args('grep', { pattern: '(?<!x)TODO' }))).rejects.toThrow(
      'lookaround are not supported; the grep tool uses RE2 syntax',
    );
  });
  test('grep stops at 1000 matches and skips files over 1 MB', async () => {
    writeFileSync(path.join(root, 'many.txt'), 'hit\n'.repeat(1500));
    writeFileSync(path.join(root, 'huge.txt'), 'hit '.repeat(300_000));
    const out = await grep(root, args('grep', { pattern: 'hit' }));
    expect(out.split('\n').filter((l) => l.startsWith('many.txt:'))).toHaveLength(1000);
    expect(out).toContain('[stopped at 1000 matches]');
    expect(out).not.toContain('huge.txt:');
  });
});

describe('bash', () => {
  test('returns output, reports a failing exit code and a timeout as BareAgent does', async () => {
    expect(await bash(root, args('bash', { command: 'echo hi && ls src' }))).toBe('hi\napp.ts\n');
    expect(await bash(root, args('bash', { command: 'echo oops >&2; exit 3' }))).toBe('Command failed with exit code 3\noops\n');
    expect(await bash(root, args('bash', { command: 'sleep 5', timeout: 0.5 }))).toBe('Error: command timed out after 0.5 seconds');
  });
  test('a command that prints without end is cut off and its output capped', async () => {
    const out = await bash(root, args('bash', { command: 'yes', timeout: 1 }));
    expect(out.startsWith('Error: command timed out after 1 seconds')).toBe(true);
    expect(out.length).toBeLessThan(31_000);
    expect(out).toContain('[output truncated:');
  });
  test("does not see the worker's secrets", async () => {
    process.env.OPENAI_API_KEY = 'sk-worker-secret';
    try {
      expect(await bash(root, args('bash', { command: 'echo "key=${OPENAI_API_KEY:-none}"' }))).toBe('key=none\n');
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });
  test('a cancelled command and the children it started are killed', async () => {
    const controller = new AbortController();
    const marker = `bareagent-test-${process.pid}-${Date.now()}`;
    const pending = bash(root, args('bash', { command: `(exec -a ${marker} sleep 30) & wait`, timeout: 60 }), {
      signal: controller.signal,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(isMarkedRunning(marker)).toBe(true);
    controller.abort();
    expect(await pending).toMatch(/^Error: command cancelled/);
    await new Promise((r) => setTimeout(r, 100));
    expect(isMarkedRunning(marker)).toBe(false);
  });
});


describe('what a successful edit or write shows', () => {
  const N = 'numbered as read_file numbers them (the "12: " prefixes are not part of the file):';
  test('a small file is shown whole after an edit, numbered as read_file numbers it, so the next edit copies it as it is now', async () => {
    writeFileSync(path.join(root, 'solution.py'), 'def f(x):\n    """Twice x."""\n    raise NotImplementedError\n');
    const result = await editFile(root, args('edit_file', { file_path: 'solution.py', old_text: '    raise NotImplementedError', new_text: '    y = x * 2\n    return y' }));
    expect(result).toBe(`Edited solution.py\nsolution.py now, 4 lines, ${N}\n1: def f(x):\n2:     """Twice x."""\n3:     y = x * 2\n4:     return y`);
    // The same numbering as read_file's.
    expect(await readFile(root, args('read_file', { file_path: 'solution.py' }))).toContain('3:     y = x * 2\n4:     return y');
  });
  test('a large file shows the edited lines with three of context, numbered by their place in the file', async () => {
    writeFileSync(path.join(root, 'big.js'), Array.from({ length: 300 }, (_, i) => `const v${i} = ${i};`).join('\n'));
    const result = await editFile(root, args('edit_file', { file_path: 'big.js', old_text: 'const v150 = 150;', new_text: 'const v150 = 1;\nconst extra = 2;' }));
    expect(result).toBe(
      `Edited big.js\nbig.js now, lines 148-155 of 301, ${N}\n148: const v147 = 147;\n149: const v148 = 148;\n150: const v149 = 149;\n151: const v150 = 1;\n152: const extra = 2;\n153: const v151 = 151;\n154: const v152 = 152;\n155: const v153 = 153;`,
    );
  });
  test('a large write shows nothing more than its line; an empty one too', async () => {
    expect(await writeFile(root, args('write_file', { file_path: 'large.txt', content: 'x\n'.repeat(200) }))).toBe('Wrote 400 bytes to large.txt');
    expect(await writeFile(root, args('write_file', { file_path: 'empty.txt', content: '' }))).toBe('Wrote 0 bytes to empty.txt');
  });
  test('a miss on text the run\'s own earlier edit changed says so, before the usual explanation', async () => {
    writeFileSync(path.join(root, 'a.py'), 'def f():\n    return 0\n');
    const edit = { file_path: 'a.py', old_text: '    raise NotImplementedError', new_text: '    return 1' };
    const miss = await editFile(root, args('edit_file', edit), true, true).catch((err: Error) => err.message);
    expect(miss.split('\n').slice(0, 2)).toEqual([
      'old_text not found in file a.py.',
      'old_text was in the file before your own earlier edit_file of it in this run, which changed those lines: edit the file as it is now.',
    ]);
    expect(miss).toContain('a.py, 3 lines, numbered as read_file numbers them');
    // Without that knowledge, the miss as before.
    const plain = await editFile(root, args('edit_file', edit), true).catch((err: Error) => err.message);
    expect(plain).not.toContain('earlier edit_file');
  });
});

describe('edit_file slips a small model makes', () => {
  const edit = (file: string, old_text: string, new_text: string) => editFile(root, args('edit_file', { file_path: file, old_text, new_text }));
  const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

  test('the whole function given for its body line replaces the function, not nests a copy in it (JavaScript)', async () => {
    const jsdoc = '/**\n * Twice x.\n * @example twice(2) // 4\n */\n';
    writeFileSync(path.join(root, 'solution.js'), `${jsdoc}function twice(x) {\n  throw new Error('not implemented');\n}\n\nmodule.exports = { twice };\n`);
    const result = await edit('solution.js', "throw new Error('not implemented');", 'function twice(x) {\n  return x * 2;\n}');
    expect(result.split('\n')[0]).toBe('Edited solution.js: new_text starts with line 5, the header of the block old_text is in, so it replaced lines 5-7 instead of nesting a second copy inside them');
    expect(read('solution.js')).toBe(`${jsdoc}function twice(x) {\n  return x * 2;\n}\n\nmodule.exports = { twice };\n`);
    const { twice } = (await import(path.join(root, 'solution.js'))) as { twice: (x: number) => number };
    expect(twice(3)).toBe(6);
  });

  test('the same in Python, across the docstring, and for an indented method that brings its own indentation', async () => {
    writeFileSync(path.join(root, 'sol.py'), 'def slug(s):\n    """Lower.\n\n    >>> slug("A")\n    \'a\'\n    """\n    raise NotImplementedError\n\n\nX = 1\n');
    await edit('sol.py', 'raise NotImplementedError', 'def slug(s):\n    """Lower."""\n    return s.lower()\n');
    expect(read('sol.py')).toBe('def slug(s):\n    """Lower."""\n    return s.lower()\n\n\nX = 1\n');
    writeFileSync(path.join(root, 'cls.py'), 'class A:\n    def f(self):\n        pass\n\n    def g(self):\n        return 2\n');
    await edit('cls.py', '        pass', '    def f(self):\n        return 1');
    expect(read('cls.py')).toBe('class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n');
  });

  test('an edit that only looks alike is applied as written', async () => {
    // The repeated line is not a block header: a plain replacement.
    writeFileSync(path.join(root, 'a.py'), 'x = 1\ndef f():\n    pass\n');
    await edit('a.py', 'pass', 'x = 1\n    return x');
    expect(read('a.py')).toBe('x = 1\ndef f():\n    x = 1\n    return x\n');
    // A header that does not enclose old_text: applied as written.
    writeFileSync(path.join(root, 'b.js'), 'function g() {\n  return 1;\n}\nconst y = 2;\n');
    await edit('b.js', 'const y = 2;', 'function g() {\n  return 3;\n}');
    expect(read('b.js')).toBe('function g() {\n  return 1;\n}\nfunction g() {\n  return 3;\n}\n');
    // A block that closes with the same brace as the enclosing one keeps the enclosing brace.
    writeFileSync(path.join(root, 'c.js'), 'function h(a) {\n  go();\n}\n');
    await edit('c.js', 'go();', 'if (a) {\n    go();\n  }');
    expect(read('c.js')).toBe('function h(a) {\n  if (a) {\n    go();\n  }\n}\n');
  });

  test('an edit whose new_text is its old_text is refused, and the file is untouched', async () => {
    writeFileSync(path.join(root, 't.js'), 'assert(1);\n');
    await expect(edit('t.js', 'assert(1);', 'assert(1);')).rejects.toThrow(
      'old_text and new_text are the same, so this edit would change nothing: put the changed text in new_text. old_text is in t.js at line 1. To find which files hold a text, call grep with pattern "assert\\\\(1\\\\);".',
    );
    expect(read('t.js')).toBe('assert(1);\n');
    // Used to look for a text: whether it is in the file, and the call that finds where it is.
    await expect(edit('t.js', "\n  throw new Error('invalid age')", "\n  throw new Error('invalid age')")).rejects.toThrow(
      'old_text is not in t.js. To find which files hold a text, call grep with pattern "throw new Error\\\\(\'invalid age\'\\\\)".',
    );
    // Found: the lines around it, numbered, so that the function holding it is named (answer-file-throws).
    writeFileSync(path.join(root, 'parse.js'), "function parseAge(text) {\n  const age = Number(text);\n  if (age < 0) throw new Error('invalid age');\n  return age;\n}\n");
    await expect(edit('parse.js', "throw new Error('invalid age');", "throw new Error('invalid age');")).rejects.toThrow(
      "old_text is in parse.js at line 3. To find which files hold a text, call grep with pattern \"throw new Error\\\\('invalid age'\\\\);\".\nparse.js now, 5 lines, numbered as read_file numbers them (the \"12: \" prefixes are not part of the file):\n1: function parseAge(text) {",
    );
  });
});

describe('a numbered listing written back as content', () => {
  const N = 'numbered as read_file numbers them (the "12: " prefixes are not part of the file):';
  test("write_file of an edit's result, header and numbers, writes the file's text (also two listings deep)", async () => {
    const listing = `solution.js now, 3 lines, ${N}\n1: function f() {\n2:   return 1;\n3: }`;
    const result = await writeFile(root, args('write_file', { file_path: 'solution.js', content: listing }));
    expect(result.split('\n')[0]).toBe('Wrote 28 bytes to solution.js (the "12: " line numbers of a numbered listing were taken off; they are not part of the file)');
    expect(readFileSync(path.join(root, 'solution.js'), 'utf8')).toBe('function f() {\n  return 1;\n}');
    const twice = `solution.js now, 4 lines, ${N}\n1: solution.js now, 3 lines, ${N}\n2: 1: a\n3: 2: b\n4: 3: c\n`;
    await writeFile(root, args('write_file', { file_path: 'twice.txt', content: twice }));
    expect(readFileSync(path.join(root, 'twice.txt'), 'utf8')).toBe('a\nb\nc\n');
    // The model's own empty line between two numbered ones, under the header (seen from the local model).
    const gapped = `user.js now, 4 lines, ${N}\n1: function f() {\n2: }\n\n3: \n4: module.exports = { f };`;
    await writeFile(root, args('write_file', { file_path: 'user.js', content: gapped }));
    expect(readFileSync(path.join(root, 'user.js'), 'utf8')).toBe('function f() {\n}\n\nmodule.exports = { f };');
  });
  test("edit_file's numbered new_text loses its numbers; text that only looks numbered is kept", async () => {
    writeFileSync(path.join(root, 'f.py'), 'def f():\n    pass\n');
    await editFile(root, args('edit_file', { file_path: 'f.py', old_text: '    pass', new_text: '2:     x = 1\n3:     y = 2\n4:     return x + y' }));
    expect(readFileSync(path.join(root, 'f.py'), 'utf8')).toBe('def f():\n    x = 1\n    y = 2\n    return x + y\n');
    await writeFile(root, args('write_file', { file_path: 'list.txt', content: '1: apples\n2: pears\n' }));
    expect(readFileSync(path.join(root, 'list.txt'), 'utf8')).toBe('1: apples\n2: pears\n');
    await writeFile(root, args('write_file', { file_path: 'gap.txt', content: '1: a\n2: b\n4: c\n' }));
    expect(readFileSync(path.join(root, 'gap.txt'), 'utf8')).toBe('1: a\n2: b\n4: c\n');
    // Without our header, an empty line between numbered ones is the file's own.
    await writeFile(root, args('write_file', { file_path: 'spaced.txt', content: '1: a\n\n2: b\n\n3: c\n' }));
    expect(readFileSync(path.join(root, 'spaced.txt'), 'utf8')).toBe('1: a\n\n2: b\n\n3: c\n');
  });
});

test('a write_file of the content the file already holds writes nothing and says so, without showing the file again', async () => {
  writeFileSync(path.join(root, 'same.js'), 'module.exports = 1;\n');
  const before = statSync(path.join(root, 'same.js')).ino;
  expect(await writeFile(root, args('write_file', { file_path: 'same.js', content: 'module.exports = 1;\n' }))).toBe(
    'same.js already holds exactly this content (20 bytes): nothing was written. Run its tests or examples to check it, or give your answer.',
  );
  expect(statSync(path.join(root, 'same.js')).ino).toBe(before);
  expect(await writeFile(root, args('write_file', { file_path: 'same.js', content: 'module.exports = 2;\n' }))).toMatch(/^Wrote 20 bytes to same\.js\n/);
});

test('a hostile new_text line cannot make the header check backtrack: an edit with a 100,000-character line of "a(" is applied at once', async () => {
  writeFileSync(path.join(root, 'h.js'), 'function f() {\n  x();\n}\n');
  const line = 'a('.repeat(50_000);
  // The regular expression this check replaced took 13.6 s on 4,000 such characters (cubic): this one would never end.
  await editFile(root, args('edit_file', { file_path: 'h.js', old_text: 'x();', new_text: `${line}\n  y();` }));
  expect(readFileSync(path.join(root, 'h.js'), 'utf8')).toBe(`function f() {\n  ${line}\n  y();\n}\n`);
});

test('hostile content cannot make the listing check slow: frame-like lines and a thousand nested numberings are written at once', async () => {
  const frameBait = `x${' now, x'.repeat(100_000)}`;
  await writeFile(root, args('write_file', { file_path: 'bait.txt', content: `${frameBait}\n${frameBait}\n` }));
  expect(readFileSync(path.join(root, 'bait.txt'), 'utf8')).toBe(`${frameBait}\n${frameBait}\n`);
  // Three lines, each numbered a thousand times over: three layers come off, the rest is kept as written.
  const nested = [1, 2, 3].map((n) => `${n}: `.repeat(1_000) + 'x').join('\n');
  await writeFile(root, args('write_file', { file_path: 'nested.txt', content: nested }));
  expect(readFileSync(path.join(root, 'nested.txt'), 'utf8')).toBe([1, 2, 3].map((n) => `${n}: `.repeat(997) + 'x').join('\n'));
});

describe('a whole-file write that drops what the file had', () => {
  test('the result names the exports and top-level functions the write took away', async () => {
    writeFileSync(path.join(root, 'solution.js'), "function deepGet(o, p, d) {\n  throw new Error('not implemented');\n}\n\nfunction helper() {}\n\nmodule.exports = { deepGet, helper };\n");
    const result = await writeFile(root, args('write_file', { file_path: 'solution.js', content: 'function deepGet(o, p, d) {\n  return d;\n}\n' }));
    expect(result).toMatch(/^Wrote \d+ bytes to solution\.js\n/);
    expect(result).toContain('Note: this write replaced the whole file, and it no longer exports deepGet, helper, which it did before.');
    writeFileSync(path.join(root, 'm.py'), 'import re\n\ndef slugify(s):\n    raise NotImplementedError\n\nclass Slug:\n    pass\n');
    expect(await writeFile(root, args('write_file', { file_path: 'm.py', content: 'def slugify(s):\n    return s\n' }))).toContain('no longer defines Slug');
    // A rename drops one name and adds another: the note names both, and does not only ask for the old one back.
    writeFileSync(path.join(root, 'user.js'), 'function getUserName(u) {}\n\nmodule.exports = { getUserName };\n');
    expect(await writeFile(root, args('write_file', { file_path: 'user.js', content: 'function fetchUserName(u) {}\n\nmodule.exports = { fetchUserName };\n' }))).toContain(
      'Note: this write replaced the whole file; it no longer exports getUserName, which it did before, and now has fetchUserName. If a test or another file still uses getUserName, write it back; if you renamed it, change the files that use the old name too (grep for it).',
    );
  });

  test('an edit that takes away a function the file still exports says the file no longer loads', async () => {
    // The 1.5B model's edit for "add capitalize to src/strings.js": shout replaced, its export left.
    writeFileSync(path.join(root, 'strings.js'), "function shout(text) {\n  return text.toUpperCase() + '!';\n}\n\nmodule.exports = { shout };\n");
    const result = await editFile(root, args('edit_file', { file_path: 'strings.js', old_text: "function shout(text) {\n  return text.toUpperCase() + '!';\n}", new_text: 'function capitalize(word) {\n  return word[0].toUpperCase() + word.slice(1);\n}' }));
    expect(result).toMatch(/^Edited strings\.js\n/);
    expect(result).toContain('Note: after this edit the file no longer defines shout, which it did before, and now has capitalize. It still exports shout, which it no longer defines: loading the file now fails.');
    // An edit that keeps every name: no note.
    expect(await editFile(root, args('edit_file', { file_path: 'strings.js', old_text: 'word[0]', new_text: 'word.charAt(0)' }))).not.toContain('Note:');
  });

  test('a rename names the lines that still use the old name, only where the run lets a grep of the workspace run unasked', async () => {
    // rename-function, as the 1.5B model did it: the definition renamed, src/app.js left as it was.
    mkdirSync(path.join(root, 'lib'));
    writeFileSync(path.join(root, 'lib', 'user.js'), 'function getUserName(u) {}\n\nmodule.exports = { getUserName };\n');
    writeFileSync(path.join(root, 'lib', 'app.js'), "const { getUserName } = require('./user');\nconst getUserNames = 1;\nmodule.exports = () => getUserName({});\n");
    const renamed = { file_path: 'lib/user.js', content: 'function fetchUserName(u) {}\n\nmodule.exports = { fetchUserName };\n' };
    const written = await writeFile(root, args('write_file', renamed), true);
    expect(written.split('\n\n').at(-1)).toBe(
      [
        'Still to do: these lines still use getUserName, which this change took away; change them too, or put it back:',
        "lib/app.js:1: const { getUserName } = require('./user');",
        'lib/app.js:3: module.exports = () => getUserName({});',
      ].join('\n'),
    );
    // Without the search (the guard would ask about a grep, or a hook runs before each call): the note alone.
    writeFileSync(path.join(root, 'lib', 'user.js'), 'function getUserName(u) {}\n\nmodule.exports = { getUserName };\n');
    expect(await writeFile(root, args('write_file', renamed))).not.toContain('Still to do');
    // An edit that renames only the definition: the export left behind in its own file is named too.
    writeFileSync(path.join(root, 'limits.js'), 'const MAX_ITEMS = 3;\n\nmodule.exports = { MAX_ITEMS };\n');
    const edited = await editFile(root, args('edit_file', { file_path: 'limits.js', old_text: 'const MAX_ITEMS', new_text: 'const ITEM_LIMIT' }), true, false, true);
    expect(edited).toContain('\n\nStill to do: these lines still use MAX_ITEMS, which this change took away; change them too, or put it back:\nlimits.js:3: module.exports = { MAX_ITEMS };');
    // Once no line uses it, nothing is left to do.
    writeFileSync(path.join(root, 'lib', 'app.js'), "const { fetchUserName } = require('./user');\n");
    await editFile(root, args('edit_file', { file_path: 'limits.js', old_text: '{ MAX_ITEMS }', new_text: '{ ITEM_LIMIT }' }), true, false, true);
    writeFileSync(path.join(root, 'lib', 'user.js'), 'function getUserName(u) {}\n\nmodule.exports = { getUserName };\n');
    expect(await writeFile(root, args('write_file', renamed), true)).not.toContain('Still to do');
  });

  test('an edit that replaces one identifier with another is a rename: its other uses, here and elsewhere, are named', async () => {
    // rename-constant, as the 1.5B model did it: the first MAX_ITEMS of src/list.js, which defines no top-level name.
    writeFileSync(path.join(root, 'limits.js'), 'const ITEM_LIMIT = 3;\nmodule.exports = { ITEM_LIMIT };\n');
    writeFileSync(path.join(root, 'list.js'), "const { MAX_ITEMS } = require('./limits');\n// The first MAX_ITEMS items.\nmodule.exports = (items) => items.slice(0, MAX_ITEMS);\n");
    const edited = await editFile(root, args('edit_file', { file_path: 'list.js', old_text: 'MAX_ITEMS', new_text: 'ITEM_LIMIT' }), true, false, true);
    expect(edited.split('\n\n').at(-1)).toBe(
      ['Still to do: these lines still use MAX_ITEMS, which this change took away; change them too, or put it back:', 'list.js:2: // The first MAX_ITEMS items.', 'list.js:3: module.exports = (items) => items.slice(0, MAX_ITEMS);'].join('\n'),
    );
    // Text that is not one identifier for another is no rename.
    expect(await editFile(root, args('edit_file', { file_path: 'list.js', old_text: 'The first MAX_ITEMS', new_text: 'The first ITEM_LIMIT' }), true, false, true)).not.toContain('Still to do');
    // A local name (not imported or defined at the top): its uses in this file only; a keyword swap is no rename.
    writeFileSync(path.join(root, 'other.js'), 'const total = 1;\n');
    writeFileSync(path.join(root, 'sum.js'), 'function sum(xs) {\n  let total = 0;\n  for (const x of xs) total += x;\n  return total;\n}\nmodule.exports = { sum };\n');
    const local = await editFile(root, args('edit_file', { file_path: 'sum.js', old_text: 'total', new_text: 'acc' }), true, false, true);
    expect(local.split('\n\n').at(-1)).toBe(['Still to do: these lines still use total, which this change took away; change them too, or put it back:', 'sum.js:3:   for (const x of xs) total += x;', 'sum.js:4:   return total;'].join('\n'));
    expect(await editFile(root, args('edit_file', { file_path: 'sum.js', old_text: 'let', new_text: 'var' }), true, false, true)).not.toContain('Still to do');
  });

  test('the search for the lines still using a name shows at most ten, each cut at 200 characters', async () => {
    writeFileSync(path.join(root, 'a.js'), 'function old() {}\nmodule.exports = { old };\n');
    writeFileSync(path.join(root, 'uses.js'), `${'old();\n'.repeat(30)}old(${'x'.repeat(500)});\n`);
    const note = (await writeFile(root, args('write_file', { file_path: 'a.js', content: 'function young() {}\nmodule.exports = { young };\n' }), true)).split('\n\n').at(-1)!;
    const lines = note.split('\n');
    expect(lines).toHaveLength(12);
    expect(lines.at(-1)).toBe('…and more: grep for it to see every one.');
    expect(lines.slice(1, 11).every((line) => line.length <= 201)).toBe(true);
  });

  test('a write or an edit that leaves a JSON file that does not parse says where, and names a trailing comma', async () => {
    // fix-json's config.json, as the 1.5B model kept editing it: a key renamed, the trailing comma left.
    writeFileSync(path.join(root, 'config.json'), '{\n  "name": "shop",\n  "port": 3000,\n  "debug": false,\n}\n');
    const edited = await editFile(root, args('edit_file', { file_path: 'config.json', old_text: 'debug', new_text: 'debugging' }));
    expect(edited).toContain(
      '\n\nStill to do: config.json is not valid JSON now: Expected double-quoted property name, at line 5, column 1: "}". JSON allows no comma after the last item of an object or array: remove the comma at the end of line 4, "  \\"debugging\\": false,". Call edit_file with old_text "  \\"debugging\\": false," and new_text "  \\"debugging\\": false".',
    );
    // The call it names is one that works.
    const suggested = /old_text ("(?:[^"\\]|\\.)*") and new_text ("(?:[^"\\]|\\.)*")/.exec(edited)!;
    await editFile(root, args('edit_file', { file_path: 'config.json', old_text: JSON.parse(suggested[1]!), new_text: JSON.parse(suggested[2]!) }));
    expect(JSON.parse(readFileSync(path.join(root, 'config.json'), 'utf8'))).toEqual({ name: 'shop', port: 3000, debugging: false });
    expect(await writeFile(root, args('write_file', { file_path: 'config.json', content: '{"name": "shop", "port": 3000, "debug": false}\n' }))).not.toContain('Note:');
    expect(await writeFile(root, args('write_file', { file_path: 'config.json', content: '{"name": ' }))).toContain('Still to do: config.json is not valid JSON now: ');
    // A trailing comma whose text is in the file twice: no call is named, since the edit would take the first.
    const twice = await writeFile(root, args('write_file', { file_path: 'config.json', content: '{"a": {\n  "x": 1,\n},\n"b": {\n  "x": 1,\n}}\n' }));
    expect(twice).toContain('remove the comma at the end of line 2');
    expect(twice).not.toContain('Call edit_file');
    // The comma's line is in the file twice, with its bracket once: the two lines are named.
    const withBracket = await writeFile(root, args('write_file', { file_path: 'config.json', content: '{"a": {\n  "x": 1,\n  "y": 2\n},\n  "x": 1,\n}\n' }));
    expect(withBracket).toContain('Call edit_file with old_text "  \\"x\\": 1,\\n}" and new_text "  \\"x\\": 1\\n}".');
  });

  test('a write that keeps every name, or a file of another language, gets no note', async () => {
    writeFileSync(path.join(root, 'a.js'), 'exports.one = 1;\nexport function two() {}\n');
    expect(await writeFile(root, args('write_file', { file_path: 'a.js', content: 'exports.one = 2;\nexport async function two() { return 2; }\nconst three = 3;\n' }))).not.toContain('Note:');
    writeFileSync(path.join(root, 'notes.txt'), 'function a\n');
    expect(await writeFile(root, args('write_file', { file_path: 'notes.txt', content: 'b\n' }))).not.toContain('Note:');
  });

  test('hostile content cannot make the name check slow: long runs of spaces after every pattern are written at once', async () => {
    const spaces = ' '.repeat(200_000);
    const before = [`function${spaces}(`, `module.exports =${spaces}x${spaces}!`, `module.exports = {${'a,'.repeat(100_000)}`, ...Array.from({ length: 1_000 }, () => 'module.exports = {')].join('\n');
    writeFileSync(path.join(root, 'bait.js'), before);
    await writeFile(root, args('write_file', { file_path: 'bait.js', content: `function${spaces}*${spaces}(\n` }));
    expect(readFileSync(path.join(root, 'bait.js'), 'utf8')).toBe(`function${spaces}*${spaces}(\n`);
  });
});
