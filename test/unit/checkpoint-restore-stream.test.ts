import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filesAtRisk } from '../../src/checkpoints/at-risk';
import { record } from '../../src/checkpoints/history';
import { snapshotLimits } from '../../src/checkpoints/limits';
import { restoreTree } from '../../src/checkpoints/restore';
import { snapshot } from '../../src/checkpoints/snapshot';
import { READ_IN_WORKER_BYTES } from '../../src/checkpoints/stream-blob';

/**
 * Files at risk over READ_IN_WORKER_BYTES are compared with the target and saved by a git child
 * reading the open file: one with the target's bytes is not at risk, one with other bytes of the
 * same size is, and the kept checkpoint holds its bytes exactly.
 */
const REF = 'refs/bareagent/runs/stream';
const limits = snapshotLimits({});
const big = (fill: number) => Buffer.alloc(READ_IN_WORKER_BYTES * 2 + 17, fill);

async function world() {
  const base = mkdtempSync(path.join(os.tmpdir(), 'bareagent-stream-'));
  const ws = path.join(base, 'ws');
  mkdirSync(ws);
  const store = path.join(base, 'store.git');
  writeFileSync(path.join(ws, 'same.bin'), big(1));
  writeFileSync(path.join(ws, 'other.bin'), big(2));
  const first = await snapshot(store, ws, [], limits);
  await record(store, REF, first.tree, 'first');
  // Later, a .gitignore drops both from the snapshots; one keeps its bytes, the other gets new ones of the same size.
  writeFileSync(path.join(ws, '.gitignore'), '*.bin\n');
  writeFileSync(path.join(ws, 'other.bin'), big(3));
  const later = await snapshot(store, ws, [], limits);
  return { ws, store, first, later };
}

test('a large file with the target bytes is not at risk; one with other bytes is, by its size', async () => {
  const { ws, store, first, later } = await world();
  const atRisk = await filesAtRisk(store, ws, first.tree, later);
  expect(atRisk).toEqual([{ path: 'other.bin', kind: 'file', entry: { mode: '100644', size: big(3).length } }]);
});

test('restoring saves the large file at risk byte for byte, then puts the target back', async () => {
  const { ws, store, first } = await world();
  const outcome = await restoreTree(store, ws, first.tree, { ref: REF, deny: [], limits, label: 'restore' });
  expect(outcome.keptOutside).toEqual(['other.bin']);
  expect(readFileSync(path.join(ws, 'other.bin')).equals(big(2))).toBe(true);
  const kept = execFileSync('git', ['--git-dir', store, 'cat-file', 'blob', `${outcome.saved}:other.bin`], { maxBuffer: 64 * 1024 * 1024 });
  expect(kept.equals(big(3))).toBe(true);
});
