import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runRef, storeFor } from '../../src/checkpoints/store';
import { checkpointsQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';

/**
 * A worker killed in the middle of a checkpoint (SIGKILL, while it writes the objects in its own process): the
 * checkpoint is taken again on another worker, the store holds only whole snapshots, and the
 * run goes on to its answer.
 */
const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-ckpt-kill-'));
process.env.BAREAGENT_HOME = home;
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(() => h.close());

/**
 * Whether the worker has begun writing the checkpoint's packs: a scan of many files packs its blobs,
 * a pack placed (or its temporary file begun) each 32 MiB of deflated objects, the ref moved last.
 */
function packing(store: string): boolean {
  try {
    return readdirSync(path.join(store, 'objects', 'pack')).length > 0;
  } catch {
    return false;
  }
}

/** Incompressible files, 2,000 of 32 KiB (64 MiB), so the run-start checkpoint writes two packs and takes seconds: room for the kill between them. */
const DIRS = 20;
const FILES_PER_DIR = 100;
const FILES = DIRS * FILES_PER_DIR;

test('a worker killed during a checkpoint leaves no half-written snapshot and the run goes on', async () => {
  const workspace = realpathSync(h.workspace());
  for (let d = 0; d < DIRS; d++) {
    mkdirSync(path.join(workspace, `d${d}`));
    for (let i = 0; i < FILES_PER_DIR; i++) writeFileSync(path.join(workspace, `d${d}`, `f${i}.bin`), randomBytes(32 * 1024));
  }
  h.model.setScenario('kill', [{ text: 'write', toolCalls: [{ id: 'k1', name: 'write_file', arguments: { file_path: 'new.txt', content: 'new\n' } }] }, { text: 'done' }]);
  const first = await WorkerProcess.start(h, { BAREAGENT_HOME: home });
  const run = await h.start({ prompt: 'write one file', model: 'kill', workspace, permissionMode: 'bypass', stream: false });
  // The run-start checkpoint is under way once its first pack is begun; killed then, its ref was never moved.
  const store = storeFor(workspace, { ...process.env, BAREAGENT_HOME: home });
  const ref = path.join(store, ...runRef(run.workflowId).split('/'));
  for (const deadline = Date.now() + 60_000; !packing(store); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > deadline) throw new Error('the run-start checkpoint never began a pack');
  }
  await first.kill();
  expect(existsSync(ref)).toBe(false);
  await h.startWorker();
  await expect(run.result()).resolves.toMatchObject({ text: 'done' });

  const history = await run.fetchHistory();
  // The checkpoint is a local activity in the killed worker's workflow task: that task timed out and another worker took it again.
  expect((history.events ?? []).some((e) => e.workflowTaskTimedOutEventAttributes)).toBe(true);
  const view = await run.query(checkpointsQuery);
  expect(view.steps.map((s) => s.step)).toEqual([0, 1]);
  expect(view.store).toBe(store);
  // Whole snapshots only: every object reachable from the run's ref is there and sound.
  execFileSync('git', ['--git-dir', store, 'fsck', '--full', '--no-dangling'], { stdio: 'pipe' });
  const count = (tree: string) => execFileSync('git', ['--git-dir', store, 'ls-tree', '-r', '--name-only', tree]).toString().trim().split('\n').length;
  expect(count(view.steps[0]!.id)).toBe(FILES);
  expect(count(view.steps[1]!.id)).toBe(FILES + 1);
  // No lock of the store's own index or refs: nothing stops the next checkpoint. The killed
  // attempt may leave its private index copy (and its lock), removed after an hour.
  expect(readdirSync(store).filter((name) => name.endsWith('.lock') && !name.startsWith('index.bareagent-'))).toEqual([]);
}, 180_000);
