import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { diffText } from '../../src/checkpoints/diff';
import { changedFiles, record, refTree } from '../../src/checkpoints/history';
import { snapshotLimits, type SnapshotLimits } from '../../src/checkpoints/limits';
import { copyTree, restoreTree } from '../../src/checkpoints/restore';
import { snapshot } from '../../src/checkpoints/snapshot';

/** The shadow store against real files and the system git: what enters a snapshot and what a restore writes. */
const limits: SnapshotLimits = { ...snapshotLimits({}), maxFileBytes: 1024 * 1024 };
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'bareagent-ckpt-'));
const git = (args: string[], cwd: string) => execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' } }).toString();

/** Every entry under dir (but .git) as path → content, or → link target for symlinks. */
function files(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, prefix)).sort()) {
    const rel = prefix ? `${prefix}/${name}` : name;
    if (rel === '.git') continue;
    const stats = lstatSync(path.join(dir, rel));
    if (stats.isSymbolicLink()) out[rel] = `-> ${readlinkSync(path.join(dir, rel))}`;
    else if (stats.isDirectory()) Object.assign(out, files(dir, rel));
    else if (stats.isFile()) out[rel] = readFileSync(path.join(dir, rel), 'utf8');
    else out[rel] = '<special>';
  }
  return out;
}

/** A hash of every byte under a directory: names, modes, contents. */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const child = path.join(rel, name);
      const stats = lstatSync(path.join(dir, child));
      hash.update(`${child}\0${stats.mode}\0`);
      if (stats.isDirectory()) walk(child);
      else if (stats.isSymbolicLink()) hash.update(readlinkSync(path.join(dir, child)));
      else if (stats.isFile()) hash.update(readFileSync(path.join(dir, child)));
    }
  };
  walk('');
  return hash.digest('hex');
}

function hostileWorkspace(): string {
  const ws = tmp();
  git(['init', '-q'], ws);
  writeFileSync(path.join(ws, 'a.txt'), 'line one\nline two\n');
  git(['add', 'a.txt'], ws);
  const marker = path.join(ws, '..', `pwned-${path.basename(ws)}`);
  // From here on, the workspace's own git would run these programs.
  // The workspace's own git config names a filter and a fsmonitor that would run a program.
  git(['config', 'filter.evil.clean', `touch ${marker}`], ws);
  git(['config', 'filter.evil.smudge', `touch ${marker}`], ws);
  git(['config', 'filter.evil.required', 'true'], ws);
  git(['config', 'core.fsmonitor', `touch ${marker}`], ws);
  writeFileSync(path.join(ws, '.gitattributes'), '* filter=evil diff=evil text eol=crlf\n');
  writeFileSync(path.join(ws, '.gitignore'), '*.log\n');
  writeFileSync(path.join(ws, 'debug.log'), 'ignored\n');
  writeFileSync(path.join(ws, '.env'), 'API_TOKEN=hunter2hunter2\n');
  mkdirSync(path.join(ws, 'secrets'));
  writeFileSync(path.join(ws, 'secrets', 'key.pem'), 'PRIVATE\n');
  writeFileSync(path.join(ws, 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 1));
  symlinkSync('/etc/passwd', path.join(ws, 'passwd-link'));
  execFileSync('mkfifo', [path.join(ws, 'pipe')]);
  mkdirSync(path.join(ws, 'node_modules', 'x'), { recursive: true });
  writeFileSync(path.join(ws, 'node_modules', 'x', 'index.js'), 'module.exports = 1\n');
  return ws;
}

describe('a snapshot of a hostile workspace', () => {
  const ws = hostileWorkspace();
  const store = path.join(tmp(), 'store.git');
  const dotGit = treeHash(path.join(ws, '.git'));
  let tree: string;
  beforeAll(async () => {
    tree = (await snapshot(store, ws, ['.env', 'secrets/*'], limits)).tree;
  });

  test('holds the readable files as bytes, symlinks as links, and nothing else', async () => {
    const listing = execFileSync('git', ['--git-dir', store, 'ls-tree', '-r', tree]).toString();
    const entries = listing.trim().split('\n').map((line) => line.split('\t')[1]);
    expect(entries).toEqual(['.gitattributes', '.gitignore', 'a.txt', 'passwd-link']);
    expect(listing).toMatch(/^120000 blob \w+\tpasswd-link$/m);
    // No eol conversion, no filter: the blob is the file's bytes.
    const blob = execFileSync('git', ['--git-dir', store, 'cat-file', '-p', `${tree}:a.txt`]).toString();
    expect(blob).toBe('line one\nline two\n');
    expect(execFileSync('git', ['--git-dir', store, 'cat-file', '-p', `${tree}:passwd-link`]).toString()).toBe('/etc/passwd');
    // No object of the store holds /etc/passwd, .env or the key.
    const all = execFileSync('git', ['--git-dir', store, 'cat-file', '--batch-all-objects', '--batch']).toString();
    expect(all).not.toContain('root:');
    expect(all).not.toContain('hunter2');
    expect(all).not.toContain('PRIVATE');
  });

  test("never runs the workspace's filters or fsmonitor and leaves its .git byte for byte", async () => {
    await diffText(store, undefined, tree, false);
    expect(existsSync(path.join(ws, '..', `pwned-${path.basename(ws)}`))).toBe(false);
    expect(treeHash(path.join(ws, '.git'))).toBe(dotGit);
    expect(existsSync(path.join(ws, '.git', 'index.lock'))).toBe(false);
  });
});

describe('restore and copy', () => {
  test('a restore writes back exactly the snapshot, keeps what it replaced, and leaves ignored files be', async () => {
    const ws = tmp();
    const store = path.join(tmp(), 'store.git');
    writeFileSync(path.join(ws, '.gitignore'), '*.log\n');
    writeFileSync(path.join(ws, 'a.txt'), 'one\n');
    writeFileSync(path.join(ws, 'keep.log'), 'log one\n');
    const first = await snapshot(store, ws, [], limits);
    await record(store, 'refs/bareagent/runs/t', first.tree, 'first');
    const before = files(ws);
    writeFileSync(path.join(ws, 'a.txt'), 'two\n');
    mkdirSync(path.join(ws, 'new', 'deep'), { recursive: true });
    writeFileSync(path.join(ws, 'new', 'deep', 'b.txt'), 'b\n');
    writeFileSync(path.join(ws, 'keep.log'), 'log two\n');
    const restored = await restoreTree(store, ws, first.tree, { ref: 'refs/bareagent/runs/t', deny: [], limits, label: 'back' });
    expect(restored.changed).toEqual([
      { status: 'M', path: 'a.txt' },
      { status: 'D', path: 'new/deep/b.txt' },
    ]);
    expect(files(ws)).toEqual({ ...before, 'keep.log': 'log two\n' });
    expect(await refTree(store, 'refs/bareagent/runs/t')).toBe(first.tree);
    // What the restore replaced is a commit on the ref: nothing was lost.
    expect(await changedFiles(store, first.tree, restored.saved)).toHaveLength(2);
    const copy = path.join(tmp(), 'copy');
    await copyTree(store, restored.saved, copy);
    expect(files(copy)).toEqual({ '.gitignore': '*.log\n', 'a.txt': 'two\n', 'new/deep/b.txt': 'b\n' });
    await expect(copyTree(store, first.tree, copy)).rejects.toThrow('is not empty');
  });

  test('a symlinked directory planted after a snapshot does not let a restore write outside the workspace', async () => {
    const ws = tmp();
    const outside = tmp();
    const store = path.join(tmp(), 'store.git');
    mkdirSync(path.join(ws, 'dir'));
    writeFileSync(path.join(ws, 'dir', 'x.txt'), 'inside\n');
    const first = await snapshot(store, ws, [], limits);
    execFileSync('rm', ['-rf', path.join(ws, 'dir')]);
    symlinkSync(outside, path.join(ws, 'dir'));
    await restoreTree(store, ws, first.tree, { ref: 'refs/bareagent/runs/s', deny: [], limits, label: 'back' });
    expect(readdirSync(outside)).toEqual([]);
    expect(lstatSync(path.join(ws, 'dir')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(ws, 'dir', 'x.txt'), 'utf8')).toBe('inside\n');
  });
});
