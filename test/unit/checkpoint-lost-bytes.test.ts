import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AtRisk } from '../../src/checkpoints/at-risk';
import { record } from '../../src/checkpoints/history';
import { snapshotLimits, type SnapshotLimits } from '../../src/checkpoints/limits';
import { copyTree, RestoreRefused, restoreTree } from '../../src/checkpoints/restore';
import { snapshot } from '../../src/checkpoints/snapshot';

/**
 * Every way a file can fall out of a snapshot, and a restore of an earlier snapshot that would
 * write over it: the restore sees it (comparing the bytes on disk, not the ignore rules), a
 * refusing check stops before any write, and without one the file's bytes are kept first and
 * come back from the kept snapshot.
 */
const limits: SnapshotLimits = { ...snapshotLimits({}), maxFileBytes: 1024 };
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'bareagent-lost-'));
const REF = 'refs/bareagent/runs/lost';

interface Case {
  name: string;
  /** The workspace at the earlier checkpoint (the restore's target). */
  before: (ws: string) => void;
  /** Later: what makes the file fall out of the next snapshot, and the user's bytes; a checkpoint follows each phase. */
  after: (ws: string) => void;
  /** A phase with its own checkpoint before `after`. */
  between?: (ws: string) => void;
  at: string;
  user: string;
  deny?: string[];
  exclude?: string[];
}

const cases: Case[] = [
  {
    name: 'ignored by a later .gitignore edit',
    before: (ws) => writeFileSync(path.join(ws, 'src', 'app.js'), 'step 0\n'),
    after: (ws) => {
      writeFileSync(path.join(ws, '.gitignore'), 'src/\n');
      writeFileSync(path.join(ws, 'src', 'app.js'), 'the user\n');
    },
    at: 'src/app.js',
    user: 'the user\n',
  },
  {
    name: "excluded by the store's own exclude list",
    before: (ws) => writeFileSync(path.join(ws, 'src', 'build.out'), 'step 0\n'),
    after: (ws) => writeFileSync(path.join(ws, 'src', 'build.out'), 'the user\n'),
    at: 'src/build.out',
    user: 'the user\n',
    exclude: ['*.out'],
  },
  {
    name: 'over the size cap',
    before: (ws) => writeFileSync(path.join(ws, 'src', 'data.bin'), 'small\n'),
    after: (ws) => writeFileSync(path.join(ws, 'src', 'data.bin'), 'x'.repeat(4096)),
    at: 'src/data.bin',
    user: 'x'.repeat(4096),
  },
  {
    name: 'denied by a deny rule',
    before: (ws) => writeFileSync(path.join(ws, '.env'), 'OLD=1\n'),
    after: (ws) => writeFileSync(path.join(ws, '.env'), 'NEW=the user\n'),
    at: '.env',
    user: 'NEW=the user\n',
    deny: ['.env'],
  },
  {
    name: 'inside a folder that became its own git repository',
    before: (ws) => {
      mkdirSync(path.join(ws, 'sub'));
      writeFileSync(path.join(ws, 'sub', 'x.txt'), 'step 0\n');
    },
    // The agent removes the folder (a checkpoint drops its files), then makes it a repository of its own.
    between: (ws) => rmSync(path.join(ws, 'sub'), { recursive: true }),
    after: (ws) => {
      mkdirSync(path.join(ws, 'sub'));
      execFileSync('git', ['init', '-q'], { cwd: path.join(ws, 'sub'), env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
      writeFileSync(path.join(ws, 'sub', 'x.txt'), 'the user\n');
    },
    at: 'sub/x.txt',
    user: 'the user\n',
  },
  {
    name: 'a directory in the way of a file, holding an ignored file',
    before: (ws) => writeFileSync(path.join(ws, 'out'), 'a file at step 0\n'),
    after: (ws) => {
      rmSync(path.join(ws, 'out'));
      mkdirSync(path.join(ws, 'out'));
      writeFileSync(path.join(ws, '.gitignore'), '*.keep\n');
      writeFileSync(path.join(ws, 'out', 'notes.keep'), 'the user\n');
    },
    at: 'out/notes.keep',
    user: 'the user\n',
  },
];

async function setUp(c: Case) {
  const ws = tmp();
  const store = path.join(tmp(), 'store.git');
  mkdirSync(path.join(ws, 'src'));
  writeFileSync(path.join(ws, 'README'), 'readme\n');
  c.before(ws);
  const first = await snapshot(store, ws, [], limits);
  await record(store, REF, first.tree, 'step 0');
  const rules = { deny: c.deny ?? [], limits: { ...limits, exclude: [...limits.exclude, ...(c.exclude ?? [])] } };
  if (c.between) {
    c.between(ws);
    await record(store, REF, (await snapshot(store, ws, rules.deny, rules.limits)).tree, 'step 1');
  }
  c.after(ws);
  const last = await snapshot(store, ws, rules.deny, rules.limits);
  await record(store, REF, last.tree, 'step 2');
  return { ws, store, first, rules };
}

describe.each(cases)('a file $name', (c) => {
  test('is named before any write, and the restore refuses when asked to', async () => {
    const { ws, store, first, rules } = await setUp(c);
    let seen: AtRisk[] = [];
    const refusal = restoreTree(store, ws, first.tree, {
      ref: REF,
      ...rules,
      label: 'rewind',
      check: ({ atRisk }) => {
        seen = atRisk;
        throw new RestoreRefused('refused');
      },
    });
    await expect(refusal).rejects.toThrow('refused');
    expect(seen.map((item) => item.path)).toEqual([c.at]);
    expect(readFileSync(path.join(ws, c.at), 'utf8')).toBe(c.user);
  });

  test('is kept before the restore writes over it, and comes back from what was kept', async () => {
    const { ws, store, first, rules } = await setUp(c);
    const restored = await restoreTree(store, ws, first.tree, { ref: REF, ...rules, label: 'rewind' });
    expect(restored.keptOutside).toEqual([c.at]);
    expect(existsSync(path.join(ws, c.at)) ? readFileSync(path.join(ws, c.at), 'utf8') : undefined).not.toBe(c.user);
    const copy = path.join(tmp(), 'copy');
    await copyTree(store, restored.saved, copy);
    expect(readFileSync(path.join(copy, c.at), 'utf8')).toBe(c.user);
    // And a restore of what was kept puts the user's bytes back in the workspace itself.
    await restoreTree(store, ws, restored.saved, { ref: REF, ...rules, label: 'undo' });
    expect(readFileSync(path.join(ws, c.at), 'utf8')).toBe(c.user);
  });
});

test('a folder with its own .git in the way of a file is refused, even without a check, and left whole', async () => {
  const ws = tmp();
  const store = path.join(tmp(), 'store.git');
  writeFileSync(path.join(ws, 'vendor'), 'a file at step 0\n');
  const first = await snapshot(store, ws, [], limits);
  rmSync(path.join(ws, 'vendor'));
  mkdirSync(path.join(ws, 'vendor'));
  execFileSync('git', ['init', '-q'], { cwd: path.join(ws, 'vendor'), env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  writeFileSync(path.join(ws, 'vendor', 'lib.c'), 'the user\n');
  await expect(restoreTree(store, ws, first.tree, { ref: REF, deny: [], limits, label: 'rewind' })).rejects.toThrow(/own git repository.*vendor\//);
  expect(readFileSync(path.join(ws, 'vendor', 'lib.c'), 'utf8')).toBe('the user\n');
  expect(lstatSync(path.join(ws, 'vendor', '.git')).isDirectory()).toBe(true);
});

test('a FIFO where the restore writes a file holds no bytes: it is named, then replaced', async () => {
  const ws = tmp();
  const store = path.join(tmp(), 'store.git');
  writeFileSync(path.join(ws, 'pipe'), 'a file at step 0\n');
  const first = await snapshot(store, ws, [], limits);
  rmSync(path.join(ws, 'pipe'));
  execFileSync('mkfifo', [path.join(ws, 'pipe')]);
  const restored = await restoreTree(store, ws, first.tree, { ref: REF, deny: [], limits, label: 'rewind' });
  expect(restored.removedSpecial).toEqual(['pipe']);
  expect(readFileSync(path.join(ws, 'pipe'), 'utf8')).toBe('a file at step 0\n');
});
