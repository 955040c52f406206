import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { record } from '../../src/checkpoints/history';
import { snapshotLimits } from '../../src/checkpoints/limits';
import { restoreTree } from '../../src/checkpoints/restore';
import { snapshot } from '../../src/checkpoints/snapshot';

/**
 * A hostile model that reached a checkpoint store plants links and FIFOs where the worker writes;
 * the worker's next checkpoint must not write through them to a file outside every workspace.
 */
const limits = snapshotLimits({});
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'bareagent-links-'));

function workspaceAndStore() {
  const ws = tmp();
  writeFileSync(path.join(ws, 'a.txt'), 'a\n');
  return { ws, store: path.join(tmp(), 'store.git') };
}

test('links and FIFOs planted over the files the worker writes are replaced, and the outside files keep their bytes', async () => {
  const { ws, store } = workspaceAndStore();
  await snapshot(store, ws, [], limits);
  const outside = tmp();
  const planted: Record<string, string> = { 'info/attributes': 'attributes', 'info/exclude': 'exclude', config: 'config', HEAD: 'head', index: 'index' };
  for (const [rel, name] of Object.entries(planted)) {
    writeFileSync(path.join(outside, name), `the operator's ${name}\n`);
    rmSync(path.join(store, rel), { force: true });
    symlinkSync(path.join(outside, name), path.join(store, rel));
  }
  const taken = await snapshot(store, ws, [], limits);
  await record(store, 'refs/bareagent/runs/links', taken.tree, 'after the plant');
  for (const [rel, name] of Object.entries(planted)) {
    expect(readFileSync(path.join(outside, name), 'utf8')).toBe(`the operator's ${name}\n`);
    expect(lstatSync(path.join(store, rel)).isSymbolicLink()).toBe(false);
  }
  expect(readFileSync(path.join(store, 'info', 'attributes'), 'utf8')).toContain('-filter');
  // A FIFO in their place does not block the next checkpoint either.
  rmSync(path.join(store, 'info', 'attributes'));
  execFileSync('mkfifo', [path.join(store, 'info', 'attributes')]);
  rmSync(path.join(store, 'index'));
  execFileSync('mkfifo', [path.join(store, 'index')]);
  expect((await snapshot(store, ws, [], limits)).tree).toBe(taken.tree);
});

test('a symlinked info directory is replaced, not written into', async () => {
  const { ws, store } = workspaceAndStore();
  await snapshot(store, ws, [], limits);
  const outside = tmp();
  writeFileSync(path.join(outside, 'attributes'), 'keep me\n');
  rmSync(path.join(store, 'info'), { recursive: true });
  symlinkSync(outside, path.join(store, 'info'));
  await snapshot(store, ws, [], limits);
  expect(readFileSync(path.join(outside, 'attributes'), 'utf8')).toBe('keep me\n');
  expect(lstatSync(path.join(store, 'info')).isDirectory()).toBe(true);
});

test('a link where git writes refs or reflogs, or an alternates file, is refused by name before git runs', async () => {
  const { ws, store } = workspaceAndStore();
  const first = await snapshot(store, ws, [], limits);
  await record(store, 'refs/bareagent/runs/r', first.tree, 'first');
  const outside = tmp();
  writeFileSync(path.join(outside, 'victim'), 'the operator\n');
  // git appends to a reflog that exists, through a link too: the worker keeps none, so any is removed.
  mkdirSync(path.join(store, 'logs', 'refs', 'bareagent', 'runs'), { recursive: true });
  symlinkSync(path.join(outside, 'victim'), path.join(store, 'logs', 'refs', 'bareagent', 'runs', 'r'));
  writeFileSync(path.join(ws, 'a.txt'), 'changed\n');
  const second = await snapshot(store, ws, [], limits);
  await record(store, 'refs/bareagent/runs/r', second.tree, 'second');
  expect(readFileSync(path.join(outside, 'victim'), 'utf8')).toBe('the operator\n');
  // A ref directory that links elsewhere: refused, nothing written there.
  rmSync(path.join(store, 'refs', 'bareagent', 'runs'), { recursive: true });
  symlinkSync(outside, path.join(store, 'refs', 'bareagent', 'runs'));
  await expect(snapshot(store, ws, [], limits)).rejects.toThrow('refs/bareagent/runs as a symlink');
  rmSync(path.join(store, 'refs', 'bareagent', 'runs'));
  writeFileSync(path.join(store, 'objects', 'info', 'alternates'), `${outside}\n`);
  await expect(restoreTree(store, ws, first.tree, { ref: 'refs/bareagent/runs/r', deny: [], limits, label: 'back' })).rejects.toThrow('objects/info/alternates');
  expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('changed\n');
});
