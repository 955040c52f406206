/**
 * A fork's `--restore-files` over files no checkpoint holds: the files it writes over are saved
 * into the store first one at a time by streaming (the worker's memory does not grow with them),
 * byte for byte; past the total cap the restore is refused, naming the cap, and changes nothing;
 * what it cannot put back is named by the command, never reported as restored.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { checkpointsQuery } from '../../src/common/contract';
import { runRef } from '../../src/checkpoints/store';
import { cliEnv, runCli } from '../support/cli';
import { Harness } from '../support/harness';

const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-restore-home-'));
process.env.BAREAGENT_HOME = home;
let h: Harness;
let env: Record<string, string>;
let origin: WorkflowHandle;
let workspace: string;
let store: string;
const suffix = randomUUID().slice(0, 8);
/** Each sparse file: whole-file buffering of two of them would add at least this much twice to the worker. */
const SPARSE = '256M';
const SPARSE_BYTES = 256 * 1024 * 1024;
const CLI_TEST_MS = 300_000;

beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
  env = { ...cliEnv(h), BAREAGENT_HOME: home, BAREAGENT_WORKFLOW_BUNDLE: h.env.bundlePath };
  workspace = h.workspace({ 'keep.txt': 'kept\n' });
  const model = `restore-origin-${suffix}`;
  const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
  h.model.setScenario(model, [
    { text: 'write', toolCalls: [call('w1', 'write_file', { file_path: 'a.bin', content: 'small a\n' }), call('w2', 'write_file', { file_path: 'b.bin', content: 'small b\n' })] },
    // Over the 10 MiB file cap: no checkpoint of the origin holds it.
    { text: 'grow', toolCalls: [call('g1', 'bash', { command: 'head -c 12000000 /dev/zero > huge.bin' })] },
    { text: 'done' },
  ]);
  origin = await h.start({ prompt: 'write', model, workspace, permissionMode: 'bypass', stream: false }, `restore-origin-${suffix}`);
  await origin.result();
  store = (await origin.query(checkpointsQuery)).store!;
}, CLI_TEST_MS);
afterAll(() => h.close());

function sparse(...names: string[]): void {
  for (const name of names) execFileSync('truncate', ['-s', SPARSE, path.join(workspace, name)]);
}

async function fork(id: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const model = `restore-fork-${id}`;
  h.model.setScenario(model, [{ text: 'forked' }]);
  const run = await runCli(['fork', origin.workflowId, '--restore-files', '--model', model, '--prompt', 'again', '--id', `${model}-${suffix}`, ...args], env);
  return { code: run.code, output: `${run.stdout}\n${run.stderr}` };
}

test('files at risk are streamed into the store: the worker holds none of them, and they are kept byte for byte', async () => {
  sparse('a.bin', 'b.bin');
  const sparseId = execFileSync('git', ['hash-object', '--no-filters', path.join(workspace, 'a.bin')]).toString().trim();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const forked = await fork('rss', ['--step', '1', '--json']).finally(() => clearInterval(sampler));
  expect(forked.code).toBe(0);
  // This worker is this process: reading the two files whole took it past 2 x 256 MiB.
  const grewMiB = (peak - before) / 2 ** 20;
  console.log(`worker RSS during the restore of two ${SPARSE} sparse files: ${Math.round(before / 2 ** 20)} MiB -> peak ${Math.round(peak / 2 ** 20)} MiB (+${Math.round(grewMiB)} MiB)`);
  expect(grewMiB).toBeLessThan(160);
  expect(readFileSync(path.join(workspace, 'a.bin'), 'utf8')).toBe('small a\n');
  expect(readFileSync(path.join(workspace, 'b.bin'), 'utf8')).toBe('small b\n');
  // What the restore wrote over is on the fork's ref, the same blob as the file was.
  const log = execFileSync('git', ['--git-dir', store, 'log', '--format=%T %s', runRef(`restore-fork-rss-${suffix}`)]).toString();
  const saved = /^(\w+) before restore/m.exec(log)![1]!;
  const blob = execFileSync('git', ['--git-dir', store, 'rev-parse', `${saved}:a.bin`]).toString().trim();
  expect(blob).toBe(sparseId);
  expect(Number(execFileSync('git', ['--git-dir', store, 'cat-file', '-s', blob]).toString())).toBe(SPARSE_BYTES);
  // The origin's huge.bin, which no checkpoint holds, is named as left as it is.
  expect(forked.output).toContain('huge.bin (over the 10485760-byte file cap): left as it is now');
}, CLI_TEST_MS);

test('past the total cap the restore is refused, naming the cap, and nothing changes', async () => {
  sparse('a.bin', 'b.bin');
  const cap = 100 * 1024 * 1024;
  process.env.BAREAGENT_CHECKPOINT_MAX_TOTAL_BYTES = String(cap);
  try {
    const forked = await fork('cap', ['--step', '1']);
    expect(forked.code).not.toBe(0);
    expect(forked.output).toContain(`over the ${cap}-byte total cap (BAREAGENT_CHECKPOINT_MAX_TOTAL_BYTES)`);
    expect(forked.output).toContain('nothing was changed');
  } finally {
    delete process.env.BAREAGENT_CHECKPOINT_MAX_TOTAL_BYTES;
  }
  expect(statSync(path.join(workspace, 'a.bin')).size).toBe(SPARSE_BYTES);
  expect(statSync(path.join(workspace, 'b.bin')).size).toBe(SPARSE_BYTES);
}, CLI_TEST_MS);

test('what the checkpoint never held is named as not put back, not reported as restored', async () => {
  rmSync(path.join(workspace, 'huge.bin'));
  const forked = await fork('named', []);
  expect(forked.code).toBe(0);
  expect(forked.output).toMatch(/not put back:\n\s+huge\.bin \(over the 10485760-byte file cap\): the checkpoint does not hold it/);
  expect(() => statSync(path.join(workspace, 'huge.bin'))).toThrow();
  expect(readFileSync(path.join(workspace, 'a.bin'), 'utf8')).toBe('small a\n');
}, CLI_TEST_MS);
