import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { takeCheckpoint, type CheckpointAsk } from '../../src/checkpoints/incremental';
import { snapshotLimits } from '../../src/checkpoints/limits';
import { snapshot } from '../../src/checkpoints/snapshot';

/**
 * Checkpoints written in the worker process (src/checkpoints/incremental.ts) against real files
 * and the system git reading what they wrote: the same tree git's own listing makes, only what
 * changed read, no process started, and nothing planted in the store written through.
 */
const limits = { ...snapshotLimits({}), maxFileBytes: 2048 };
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'bareagent-incr-'));
const gitIn = (store: string, args: string[]) => execFileSync('git', ['--git-dir', store, ...args], { env: { PATH: process.env.PATH, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' } }).toString();
const REF = 'refs/bareagent/runs/incr';
const past = (file: string) => utimesSync(file, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));

function workspace(): { ws: string; write: (file: string, content: string) => void } {
  const ws = tmp();
  const write = (file: string, content: string) => {
    mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
    writeFileSync(path.join(ws, file), content);
  };
  write('a.txt', 'a\n');
  write('.gitignore', '*.log\n!keep.log\n/build/\ndocs/**/*.tmp\n[Tt]emp*\n\\#hash\n');
  for (const [file, content] of Object.entries({ 'x.log': 'x', 'keep.log': 'k', 'build/o.o': 'o', 'src/build/o.c': 'c', 'docs/a/b/c.tmp': 't', 'docs/a/ok.md': 'ok', Temp1: 't', temp2: 't', '#hash': 'h' })) write(file, content);
  write('sub/.gitignore', '!*.log\nlocal.txt\n');
  write('sub/s.log', 's');
  write('sub/deeper/local.txt', 'l');
  write('node_modules/m/i.js', '1');
  write('.env', 'API_TOKEN=hunter2hunter2\n');
  write('secrets/k', 'PRIVATE\n');
  write('exe.sh', '#!/bin/sh\n');
  chmodSync(path.join(ws, 'exe.sh'), 0o755);
  symlinkSync('/etc/passwd', path.join(ws, 'pw'));
  execFileSync('mkfifo', [path.join(ws, 'pipe')]);
  execFileSync('mkfifo', [path.join(ws, 'src', '.gitignore')]);
  write('nested/r/x.c', 'x');
  execFileSync('git', ['init', '-q'], { cwd: path.join(ws, 'nested', 'r'), env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  write('big.bin', 'x'.repeat(3000));
  for (const file of ['a.txt', 'exe.sh', 'docs/a/ok.md', 'keep.log', 'sub/s.log', 'src/build/o.c', '#hash', 'temp2', 'Temp1']) past(path.join(ws, file));
  return { ws, write };
}

const deny = ['.env', 'secrets/*'];

test('a scan makes the tree git makes of the same workspace, which git reads back whole', async () => {
  const { ws } = workspace();
  const byGit = await snapshot(path.join(tmp(), 'store.git'), ws, deny, limits);
  const store = path.join(tmp(), 'store.git');
  const taken = await takeCheckpoint({ store, root: ws, ref: REF, message: 'first', deny, limits });
  expect(taken.tree).toBe(byGit.tree);
  expect(taken.files).toBe(byGit.files);
  expect(taken.leftOut).toEqual(expect.arrayContaining(['nested/r/ (its own git repository)', 'node_modules/ (excluded)', 'src/.gitignore (a FIFO or device: read as empty)', 'big.bin (over the 2048-byte file cap)']));
  execFileSync('git', ['--git-dir', store, 'fsck', '--full', '--strict', '--no-dangling'], { stdio: 'pipe' });
  expect(gitIn(store, ['log', '--format=%T %s', REF]).trim()).toBe(`${taken.tree} first`);
  expect(gitIn(store, ['cat-file', '-p', `${taken.tree}:pw`])).toBe('/etc/passwd');
  const all = gitIn(store, ['cat-file', '--batch-all-objects', '--batch']);
  expect(all).not.toContain('hunter2');
  expect(all).not.toContain('PRIVATE');
});

test('after a change only what changed is read; known paths read just themselves; nothing changed starts no process', async () => {
  const { ws, write } = workspace();
  const store = path.join(tmp(), 'store.git');
  const ask: CheckpointAsk = { store, root: ws, ref: REF, message: 'm', deny, limits };
  const first = await takeCheckpoint(ask);
  // Past the racy-timestamp margin: the files just read are trusted by their stat data now.
  await new Promise((resolve) => setTimeout(resolve, 400));
  const settled = await takeCheckpoint({ ...ask, previous: first.tree });
  expect(settled.tree).toBe(first.tree);
  write('a.txt', 'A\n');
  const scanned = await takeCheckpoint({ ...ask, previous: settled.tree });
  expect(scanned.mode).toBe('scan');
  expect(scanned.read).toBe(1);
  expect(scanned.changed).toEqual([{ status: 'M', path: 'a.txt' }]);
  write('src/new.txt', 'new\n');
  const known = await takeCheckpoint({ ...ask, previous: scanned.tree, paths: ['src/new.txt'] });
  expect(known).toMatchObject({ mode: 'paths', read: 1, changed: [{ status: 'A', path: 'src/new.txt' }] });
  // The same tree a full snapshot by git makes of the workspace now.
  expect(known.tree).toBe((await snapshot(path.join(tmp(), 'store.git'), ws, deny, limits)).tree);
  // No git on the PATH: a checkpoint that finds nothing changed never needed one.
  const pathBefore = process.env.PATH;
  process.env.PATH = tmp();
  try {
    await new Promise((resolve) => setTimeout(resolve, 400));
    const unchanged = await takeCheckpoint({ ...ask, previous: known.tree });
    expect(unchanged.tree).toBe(known.tree);
    expect(unchanged.changed).toEqual([]);
    write('docs/a/ok.md', 'changed\n');
    expect((await takeCheckpoint({ ...ask, previous: known.tree, paths: ['docs/a/ok.md'] })).changed).toEqual([{ status: 'M', path: 'docs/a/ok.md' }]);
  } finally {
    process.env.PATH = pathBefore;
  }
  expect(gitIn(store, ['log', '--format=%s', REF]).trim().split('\n')).toHaveLength(4);
});

test("a change the stat data cannot tell (same size, mtime set back) is still read while it is within the last snapshot's tick", async () => {
  const { ws } = workspace();
  const store = path.join(tmp(), 'store.git');
  const ask: CheckpointAsk = { store, root: ws, ref: REF, message: 'm', deny, limits };
  writeFileSync(path.join(ws, 'racy.txt'), 'one\n');
  const first = await takeCheckpoint(ask);
  const { mtime } = lstatSync(path.join(ws, 'racy.txt'));
  // Same size, same mtime: only the racy-timestamp rule (and ctime) can tell.
  writeFileSync(path.join(ws, 'racy.txt'), 'two\n');
  utimesSync(path.join(ws, 'racy.txt'), mtime, mtime);
  const second = await takeCheckpoint({ ...ask, previous: first.tree });
  expect(gitIn(store, ['show', `${second.tree}:racy.txt`])).toBe('two\n');
});

test('a written .gitignore, a path over a cap or out of the workspace makes a known-path checkpoint scan', async () => {
  const { ws, write } = workspace();
  const store = path.join(tmp(), 'store.git');
  const ask: CheckpointAsk = { store, root: ws, ref: REF, message: 'm', deny, limits };
  const first = (await takeCheckpoint(ask)).tree;
  write('.gitignore', '*.txt\n');
  const ignoring = await takeCheckpoint({ ...ask, previous: first, paths: ['.gitignore'] });
  expect(ignoring.mode).toBe('scan');
  expect(gitIn(store, ['ls-tree', '-r', '--name-only', ignoring.tree])).not.toContain('a.txt');
  write('huge.dat', 'y'.repeat(4000));
  const capped = await takeCheckpoint({ ...ask, previous: ignoring.tree, paths: ['huge.dat'] });
  expect(capped.mode).toBe('scan');
  expect(capped.leftOut).toContain('huge.dat (over the 2048-byte file cap)');
  expect((await takeCheckpoint({ ...ask, previous: capped.tree, paths: ['../outside.txt'] })).mode).toBe('scan');
  // Another run's checkpoint in between (the store's newest is not ours): the paths are not all that changed since ours.
  write('b.md', 'b\n');
  expect((await takeCheckpoint({ ...ask, previous: first, paths: ['b.md'] })).mode).toBe('scan');
});

test('a link over the index is replaced, never written through; links where refs and objects go are refused; a killed writer leaves nothing in the way', async () => {
  const { ws, write } = workspace();
  const store = path.join(tmp(), 'store.git');
  const ask: CheckpointAsk = { store, root: ws, ref: REF, message: 'm', deny, limits };
  const first = await takeCheckpoint(ask);
  const outside = tmp();
  writeFileSync(path.join(outside, 'index'), "the operator's index\n");
  rmSync(path.join(store, 'bareagent-index'));
  symlinkSync(path.join(outside, 'index'), path.join(store, 'bareagent-index'));
  // Links where the ref and the objects go: refused by name before anything is written.
  const ref = path.join(store, REF);
  const refBytes = readFileSync(ref);
  rmSync(ref);
  symlinkSync(path.join(outside, 'index'), ref);
  await expect(takeCheckpoint({ ...ask, previous: first.tree })).rejects.toThrow(/refused/);
  rmSync(ref);
  writeFileSync(ref, refBytes);
  symlinkSync(outside, path.join(store, 'objects', 'zz'));
  await expect(takeCheckpoint({ ...ask, previous: first.tree })).rejects.toThrow(/refused/);
  rmSync(path.join(store, 'objects', 'zz'));
  // What a writer killed halfway leaves: a temporary object and a lock on the ref, both old.
  writeFileSync(path.join(store, 'objects', 'tmp_obj_bareagent_1_dead'), 'half');
  writeFileSync(`${ref}.lock`, '');
  utimesSync(`${ref}.lock`, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  write('c.txt', 'c\n');
  const second = await takeCheckpoint({ ...ask, previous: first.tree });
  expect(readFileSync(path.join(outside, 'index'), 'utf8')).toBe("the operator's index\n");
  expect(readdirSync(outside)).toEqual(['index']);
  expect(lstatSync(path.join(store, 'bareagent-index')).isSymbolicLink()).toBe(false);
  expect(existsSync(`${ref}.lock`)).toBe(false);
  expect(gitIn(store, ['show', `${second.tree}:c.txt`])).toBe('c\n');
  expect(gitIn(store, ['log', '--format=%T', REF]).trim().split('\n')).toEqual([second.tree, first.tree]);
  execFileSync('git', ['--git-dir', store, 'fsck', '--full', '--strict', '--no-dangling'], { stdio: 'pipe' });
});

test('a scan that reads many files writes their blobs as one pack git reads whole; a handful stay loose objects', async () => {
  const ws = tmp();
  for (let i = 0; i < 60; i += 1) {
    mkdirSync(path.join(ws, `d${i % 3}`), { recursive: true });
    writeFileSync(path.join(ws, `d${i % 3}`, `f${i}.txt`), `file ${i}\n`);
  }
  writeFileSync(path.join(ws, 'same-a.txt'), 'twice\n');
  writeFileSync(path.join(ws, 'same-b.txt'), 'twice\n');
  writeFileSync(path.join(ws, 'large.bin'), Buffer.alloc(100 * 1024, 7));
  symlinkSync('d0/f0.txt', path.join(ws, 'link'));
  const store = path.join(tmp(), 'store.git');
  const ask: CheckpointAsk = { store, root: ws, ref: REF, message: 'm', deny: [], limits: snapshotLimits({}) };
  const first = await takeCheckpoint(ask);
  const packs = readdirSync(path.join(store, 'objects', 'pack'));
  expect(packs.filter((name) => name.endsWith('.idx'))).toHaveLength(1);
  expect(packs.filter((name) => name.endsWith('.pack'))).toHaveLength(1);
  expect(packs.filter((name) => name.startsWith('tmp_'))).toEqual([]);
  const idx = path.join(store, 'objects', 'pack', packs.find((name) => name.endsWith('.idx'))!);
  // The 60 files, the two of the same bytes once, the link: 62 blobs packed; the large file loose.
  const listed = gitIn(store, ['verify-pack', '-v', idx]);
  expect(listed.split('\n').filter((line) => / blob /.test(line))).toHaveLength(62);
  expect(listed).toContain('non delta: 62 objects');
  execFileSync('git', ['--git-dir', store, 'fsck', '--full', '--strict', '--no-dangling'], { stdio: 'pipe' });
  expect(gitIn(store, ['show', `${first.tree}:d1/f31.txt`])).toBe('file 31\n');
  expect(gitIn(store, ['cat-file', '-p', `${first.tree}:link`])).toBe('d0/f0.txt');
  expect(Buffer.compare(execFileSync('git', ['--git-dir', store, 'cat-file', 'blob', `${first.tree}:large.bin`]), Buffer.alloc(100 * 1024, 7))).toBe(0);
  // The whole tree back out of the pack, as a restore reads it.
  const out = tmp();
  execFileSync('sh', ['-c', `git --git-dir "${store}" archive ${first.tree} | tar -x -C "${out}"`]);
  expect(readFileSync(path.join(out, 'd2', 'f59.txt'), 'utf8')).toBe('file 59\n');
  // One changed file: loose, no second pack.
  writeFileSync(path.join(ws, 'd0', 'f0.txt'), 'changed\n');
  const second = await takeCheckpoint({ ...ask, previous: first.tree });
  expect(second.changed).toEqual([{ status: 'M', path: 'd0/f0.txt' }]);
  expect(readdirSync(path.join(store, 'objects', 'pack')).filter((name) => name.endsWith('.pack'))).toHaveLength(1);
  expect(gitIn(store, ['show', `${second.tree}:d0/f0.txt`])).toBe('changed\n');
  execFileSync('git', ['--git-dir', store, 'fsck', '--full', '--strict', '--no-dangling'], { stdio: 'pipe' });
});

test('the caps hold in path order for new files (sized once open, before a byte is read) and for files the index knows', async () => {
  const ws = tmp();
  for (const name of ['a', 'b', 'c', 'd']) writeFileSync(path.join(ws, `${name}.txt`), name.repeat(1000));
  writeFileSync(path.join(ws, 'big.bin'), 'x'.repeat(3000));
  const store = path.join(tmp(), 'store.git');
  const ask: CheckpointAsk = { store, root: ws, ref: REF, message: 'caps', deny: [], limits: { ...limits, maxTotalBytes: 2500 } };
  const first = await takeCheckpoint(ask);
  expect(first.leftOut).toEqual(['big.bin (over the 2048-byte file cap)', 'c.txt (past the 2500-byte total cap)', 'd.txt (past the 2500-byte total cap)']);
  expect(gitIn(store, ['ls-tree', '--name-only', first.tree]).trim().split('\n')).toEqual(['a.txt', 'b.txt']);
  for (const name of ['a', 'b', 'c', 'd']) past(path.join(ws, `${name}.txt`));
  // a.txt shrinks: c.txt now fits, d.txt still does not; b.txt is known and unchanged.
  writeFileSync(path.join(ws, 'a.txt'), 'a');
  past(path.join(ws, 'a.txt'));
  const second = await takeCheckpoint({ ...ask, previous: first.tree });
  expect(gitIn(store, ['ls-tree', '--name-only', second.tree]).trim().split('\n')).toEqual(['a.txt', 'b.txt', 'c.txt']);
  expect(second.leftOut).toEqual(['big.bin (over the 2048-byte file cap)', 'd.txt (past the 2500-byte total cap)']);
});
