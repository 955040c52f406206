/**
 * Every directory walk of the tools (glob, grep, the may-have-run look at changed files, the
 * workspace listing of the system prompt) while another process flips a folder of the workspace
 * between a real directory and a link to a host directory: no host name is ever listed, no host
 * file read. fast-glob's walk listed the host folder's names in 27 of 300 globs. The same for the
 * worker's checkpoints, whose walk and reads run outside the sandbox: no host file's bytes or
 * name ever reaches the store (a rewind would hand them to the agent).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listWorkspace } from '../../src/activities/environment/list-workspace';
import { readAt } from '../../src/checkpoints/blobs';
import { takeCheckpoint } from '../../src/checkpoints/incremental';
import { snapshotLimits } from '../../src/checkpoints/limits';
import { glob } from '../../src/activities/tools/glob';
import { grep } from '../../src/activities/tools/grep';
import { workspaceChanges } from '../../src/activities/tools/workspace-changes';
import { workspaceRoot } from '../../src/activities/tools/workspace';
import { toolSchemas, type ToolArgs, type ToolName } from '../../src/common/tool-schemas';

const ROUNDS = 300;
const args = <N extends ToolName>(name: N, input: object): ToolArgs<N> => toolSchemas[name].parse(input) as ToolArgs<N>;

let root: string;
let host: string;
let hostName: string;
let canary: string;
let flipper: ChildProcess | undefined;
beforeEach(() => {
  root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'walk-ws-')));
  host = mkdtempSync(path.join(os.tmpdir(), 'walk-host-'));
  canary = `canary-${randomUUID()}`;
  hostName = `host-only-${randomUUID().slice(0, 8)}.txt`;
  writeFileSync(path.join(host, hostName), `${canary}\n`);
  mkdirSync(path.join(host, 'deeper'));
  writeFileSync(path.join(host, 'deeper', hostName), `${canary}\n`);
});
afterEach(() => {
  flipper?.kill('SIGKILL');
  flipper = undefined;
});

/** ws/d flips between a directory holding inside.txt and a link to the host directory, as fast as a process can. */
function startFlipping(): ChildProcess {
  const script = `
    const fs = require('fs'); const path = require('path');
    const [ws, host] = process.argv.slice(1);
    const d = path.join(ws, 'd'), real = path.join(ws, '.real'), link = path.join(ws, '.link');
    for (let i = 0; ; i++) {
      try {
        if (i % 2) { fs.rmSync(link, { force: true }); fs.symlinkSync(host, link); fs.rmSync(d, { recursive: true, force: true }); fs.renameSync(link, d); }
        else { fs.mkdirSync(real, { recursive: true }); fs.writeFileSync(path.join(real, 'inside.txt'), 'inside\\n'); fs.rmSync(d, { recursive: true, force: true }); fs.renameSync(real, d); }
      } catch {}
    }`;
  return spawn(process.execPath, ['-e', script, root, host], { stdio: 'ignore' });
}

test(`glob, grep, the changed-files look and the listing never name or read a host file while a folder flips (${ROUNDS} rounds each)`, async () => {
  writeFileSync(path.join(root, 'top.txt'), 'top\n');
  flipper = startFlipping();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const leaks: string[] = [];
  let sawInside = 0;
  const check = (what: string, output: string) => {
    if (output.includes(hostName) || output.includes(canary) || output.includes('deeper')) leaks.push(`${what}: ${output}`);
    if (output.includes('inside')) sawInside += 1;
  };
  for (let i = 0; i < ROUNDS; i++) {
    check('glob **', await glob(root, args('glob', { pattern: '**/*' })));
    check('glob d/*', await glob(root, args('glob', { pattern: 'd/**' })).catch((err: Error) => err.message));
    check('grep', await grep(root, args('grep', { pattern: 'canary|inside' })));
    check('changes', JSON.stringify(await workspaceChanges({ workspace: root, sinceMs: 0 })));
    if (i % 10 === 0) check('listing', (await listWorkspace(root)).listing);
  }
  flipper.kill('SIGKILL');
  expect(leaks).toEqual([]);
  // The walks did see the folder while it was a directory: the test is not vacuous.
  expect(sawInside).toBeGreaterThan(0);
}, 120_000);

test('a FIFO met by a walk is skipped, never opened, and said', async () => {
  mkdirSync(path.join(root, 'sub'));
  writeFileSync(path.join(root, 'sub', 'a.txt'), 'needle\n');
  execFileSync('mkfifo', [path.join(root, 'sub', 'pipe')]);
  expect(await glob(root, args('glob', { pattern: '**/*' }))).toBe('sub/a.txt\n[skipped 1 FIFO, socket or device file (never opened): "sub/pipe"]');
  expect(await grep(root, args('grep', { pattern: 'needle' }))).toBe('sub/a.txt:1: needle\n[skipped 1 FIFO, socket or device file (never opened): "sub/pipe"]');
  // Not named when the search could not have matched it.
  expect(await grep(root, args('grep', { pattern: 'needle', include: '*.txt' }))).toBe('sub/a.txt:1: needle');
});

test(`a checkpoint taken while a folder flips never stores a host file's name or bytes (${ROUNDS / 3} checkpoints)`, async () => {
  writeFileSync(path.join(root, 'top.txt'), 'top\n');
  const store = path.join(mkdtempSync(path.join(os.tmpdir(), 'walk-store-')), 'store.git');
  const git = (gitArgs: string[]) => execFileSync('git', ['--git-dir', store, ...gitArgs], { env: { PATH: process.env.PATH, HOME: '/nonexistent' } }).toString();
  const checkpoint = async (message: string) =>
    // A scan each time (no known paths): the walk, the stat of each name and the reads all run.
    (await takeCheckpoint({ store, root, ref: 'refs/bareagent/runs/walk', message, deny: [], limits: snapshotLimits({}) })).tree;
  // Not vacuous: while the folder holds still as a directory, the checkpoint reads what is in it.
  mkdirSync(path.join(root, 'd'));
  writeFileSync(path.join(root, 'd', 'inside.txt'), 'inside\n');
  expect(git(['ls-tree', '-r', '--name-only', await checkpoint('still')])).toContain('d/inside.txt');
  flipper = startFlipping();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const leaks: string[] = [];
  for (let i = 0; i < ROUNDS / 3; i++) {
    const names = git(['ls-tree', '-r', '--name-only', await checkpoint(`c${i}`)]);
    if (names.includes(hostName) || names.includes('deeper')) leaks.push(`checkpoint ${i}: ${names}`);
  }
  flipper.kill('SIGKILL');
  const everything = git(['cat-file', '--batch-all-objects', '--batch']);
  if (everything.includes(canary) || everything.includes(hostName)) leaks.push('a host name or the canary is in the store');
  expect(leaks).toEqual([]);
}, 120_000);

test("a checkpoint's read through a folder that is a link to a host folder reads nothing (O_NOFOLLOW alone guards only the last name)", () => {
  symlinkSync(host, path.join(root, 'd'));
  writeFileSync(path.join(root, 'top.txt'), 'top\n');
  expect(readAt(root, 'top.txt')?.bytes?.toString()).toBe('top\n');
  // What a walk that listed `d` as a directory just before the flip would go on to read.
  expect(readAt(root, `d/${hostName}`)).toBeUndefined();
  expect(readAt(root, `d/deeper/${hostName}`)).toBeUndefined();
});
