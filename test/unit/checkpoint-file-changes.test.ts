import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileChanges } from '../../src/checkpoints/file-changes';
import { git } from '../../src/checkpoints/git';

/** A bare store and trees written into it directly: `fileChanges` reads only what git holds. */
const store = path.join(mkdtempSync(path.join(os.tmpdir(), 'bareagent-changes-')), 'store.git');

async function tree(files: Record<string, { bytes: string | Buffer; mode?: string }>): Promise<string> {
  const lines: string[] = [];
  for (const [name, { bytes, mode = '100644' }] of Object.entries(files)) {
    const blob = (await git(['hash-object', '-w', '--stdin'], { store, input: bytes })).toString().trim();
    lines.push(`${mode} blob ${blob}\t${name}`);
  }
  return (await git(['mktree'], { store, input: `${lines.join('\n')}\n` })).toString().trim();
}

beforeAll(async () => {
  await git(['init', '--bare', '-q', store], { store });
});

test('each changed file as both texts; a deleted one with empty new text, an added one with none before', async () => {
  const before = await tree({ 'a.txt': { bytes: 'one\n' }, 'gone.txt': { bytes: 'x\n' } });
  const after = await tree({ 'a.txt': { bytes: 'two\n' }, 'new.txt': { bytes: 'new\n' } });
  const { changes, more } = await fileChanges(store, before, after);
  expect(more).toBe(0);
  expect(changes).toEqual([
    { path: 'a.txt', oldText: 'one\n', newText: 'two\n' },
    { path: 'gone.txt', oldText: 'x\n', newText: '' },
    { path: 'new.txt', oldText: null, newText: 'new\n' },
  ]);
  expect(await fileChanges(store, after, after)).toEqual({ changes: [], more: 0 });
});

test('binary, links, too large, past the total and past the file count: named, not sent', async () => {
  const limits = { files: 5, fileBytes: 100, totalBytes: 150 };
  const before = await tree({ 'bin.dat': { bytes: Buffer.from([1, 0, 2]) }, 'a-link': { bytes: 'a.txt', mode: '120000' }, 'big.txt': { bytes: 'b'.repeat(50) } });
  const after = await tree({
    'bin.dat': { bytes: Buffer.from([1, 0, 3]) },
    'a-link': { bytes: 'b.txt', mode: '120000' },
    'big.txt': { bytes: 'b'.repeat(101) },
    'c1.txt': { bytes: 'c'.repeat(80) },
    'c2.txt': { bytes: 'c'.repeat(80) },
    'c3.txt': { bytes: 'c'.repeat(80) },
  });
  const { changes, more } = await fileChanges(store, before, after, limits);
  expect(changes).toEqual([
    { path: 'a-link', status: 'modified', notShown: 'a symbolic link or a nested repository' },
    { path: 'big.txt', status: 'modified', notShown: 'larger than 100 bytes' },
    { path: 'bin.dat', status: 'modified', notShown: 'not text' },
    { path: 'c1.txt', oldText: null, newText: 'c'.repeat(80) },
    { path: 'c2.txt', status: 'added', notShown: "the change's first 150 bytes are shown" },
  ]);
  expect(more).toBe(1);
});

test('only snapshot ids reach git', async () => {
  await expect(fileChanges(store, '--output=/tmp/x', 'HEAD')).rejects.toThrow(/not snapshot ids/);
});
