import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { storeFor } from '../../src/checkpoints/store';
import { checkpointsQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
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

/** How many object directories the store has: the worker writes the checkpoint's objects there, in its own process. */
function objectDirs(store: string): number {
  try {
    return readdirSync(path.join(store, 'objects')).filter((name) => /^[0-9a-f]{2}$/.test(name)).length;
  } catch {
    return 0;
  }
}

test('a worker killed during a checkpoint leaves no half-written snapshot and the run goes on', async () => {
  const workspace = realpathSync(h.workspace());
  for (let d = 0; d < 40; d++) {
    mkdirSync(path.join(workspace, `d${d}`));
    for (let i = 0; i < 100; i++) writeFileSync(path.join(workspace, `d${d}`, `f${i}.txt`), `file ${d}/${i}\n`.repeat(20));
  }
  h.model.setScenario('kill', [{ text: 'write', toolCalls: [{ id: 'k1', name: 'write_file', arguments: { file_path: 'new.txt', content: 'new\n' } }] }, { text: 'done' }]);
  const first = await WorkerProcess.start(h, { BAREAGENT_HOME: home });
  const run = await h.start({ prompt: 'write one file', model: 'kill', workspace, permissionMode: 'bypass', stream: false });
  // The run-start checkpoint is under way once its first objects are in the store, and its
  // 4000 files are far from all written then (256 object directories fill up first).
  const store = storeFor(workspace, { ...process.env, BAREAGENT_HOME: home });
  await waitFor(async () => (objectDirs(store) >= 8 ? true : undefined), 'the run-start checkpoint writing objects', 60_000);
  await first.kill();
  expect(objectDirs(store)).toBeLessThan(256);
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
  expect(count(view.steps[0]!.id)).toBe(4000);
  expect(count(view.steps[1]!.id)).toBe(4001);
  // No lock of the store's own index or refs: nothing stops the next checkpoint. The killed
  // attempt may leave its private index copy (and its lock), removed after an hour.
  expect(readdirSync(store).filter((name) => name.endsWith('.lock') && !name.startsWith('index.bareagent-'))).toEqual([]);
}, 180_000);
