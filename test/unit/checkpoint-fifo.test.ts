import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { snapshotLimits } from '../../src/checkpoints/limits';
import { copyTree, restoreTree } from '../../src/checkpoints/restore';
import { snapshot } from '../../src/checkpoints/snapshot';

/**
 * FIFOs where git reads (`.gitignore` at any depth, `.gitattributes`): git opens them and would
 * wait for a writer for as long as its time allows. Each snapshot here finishing at all is the
 * proof; what it holds shows the FIFO was skipped, not the files around it.
 */
const limits = snapshotLimits({});
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'bareagent-fifo-'));
const show = (store: string, tree: string, file: string) => execFileSync('git', ['--git-dir', store, 'show', `${tree}:${file}`]).toString();

test('FIFOs named .gitignore, sub/.gitignore and .gitattributes are skipped and named; every other file is in the snapshot', async () => {
  const ws = tmp();
  const store = path.join(tmp(), 'store.git');
  mkdirSync(path.join(ws, 'sub', 'deep'), { recursive: true });
  writeFileSync(path.join(ws, 'a.txt'), 'a\n');
  writeFileSync(path.join(ws, 'sub', 'b.txt'), 'b\n');
  writeFileSync(path.join(ws, 'sub', 'deep', 'c.txt'), 'c\n');
  writeFileSync(path.join(ws, 'sub', 'deep', '.gitignore'), '*.log\n');
  writeFileSync(path.join(ws, 'sub', 'deep', 'x.log'), 'ignored\n');
  for (const fifo of ['.gitignore', 'sub/.gitignore', '.gitattributes', 'sub/.gitattributes']) execFileSync('mkfifo', [path.join(ws, fifo)]);
  const taken = await snapshot(store, ws, [], limits);
  const files = execFileSync('git', ['--git-dir', store, 'ls-tree', '-r', '--name-only', taken.tree]).toString().trim().split('\n');
  expect(files).toEqual(['a.txt', 'sub/b.txt', 'sub/deep/.gitignore', 'sub/deep/c.txt']);
  expect(show(store, taken.tree, 'sub/deep/c.txt')).toBe('c\n');
  expect(taken.leftOut).toEqual(expect.arrayContaining(['.gitignore (a FIFO or device: read as empty)', 'sub/.gitignore (a FIFO or device: read as empty)', '.gitattributes (a FIFO or device: not read)', 'sub/.gitattributes (a FIFO or device: not read)']));
  // A second snapshot (the index's stat data now) and a restore through the same FIFOs finish too.
  writeFileSync(path.join(ws, 'sub', 'b.txt'), 'b, changed\n');
  expect(show(store, (await snapshot(store, ws, [], limits)).tree, 'sub/b.txt')).toBe('b, changed\n');
  const restored = await restoreTree(store, ws, taken.tree, { ref: 'refs/bareagent/runs/f', deny: [], limits, label: 'back' });
  expect(readFileSync(path.join(ws, 'sub', 'b.txt'), 'utf8')).toBe('b\n');
  // The FIFO .gitattributes files would block git's checkout: removed (no bytes) and said.
  expect(restored.removedSpecial).toEqual(['.gitattributes', 'sub/.gitattributes']);
  const copy = path.join(tmp(), 'copy');
  await copyTree(store, restored.saved, copy);
  expect(readFileSync(path.join(copy, 'sub', 'b.txt'), 'utf8')).toBe('b, changed\n');
});

test('a nested repository, an excluded folder and a file over the cap are named as left out', async () => {
  const ws = tmp();
  const store = path.join(tmp(), 'store.git');
  mkdirSync(path.join(ws, 'vendor', 'lib'), { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: path.join(ws, 'vendor', 'lib'), env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  writeFileSync(path.join(ws, 'vendor', 'lib', 'x.c'), 'x\n');
  mkdirSync(path.join(ws, 'node_modules', 'm'), { recursive: true });
  writeFileSync(path.join(ws, 'node_modules', 'm', 'i.js'), '1\n');
  writeFileSync(path.join(ws, 'big.bin'), Buffer.alloc(2048));
  const taken = await snapshot(store, ws, [], { ...limits, maxFileBytes: 1024 });
  expect(taken.leftOut).toEqual(['vendor/lib/ (its own git repository)', 'node_modules/ (excluded)', 'big.bin (over the 1024-byte file cap)']);
});
