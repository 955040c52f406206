/**
 * The worker reads workspace files for itself (AGENTS.md root and nested, `.bareagent/settings.json`,
 * `.bareagent/mcp.json`) through the file tools' safe open: a FIFO is refused at once instead of
 * freezing the worker, and a symlink flipped to a host file outside every workspace never gets
 * that file into a prompt.
 */
import { spawn, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readNestedInstructions, readProjectInstructions } from '../../src/activities/project-instructions';
import { createReadWorkspaceSettings } from '../../src/activities/settings/read-workspace-settings';
import { statusQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';

const ROUNDS = 3000;

let h: Harness;
let worker: WorkerProcess | undefined;
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(async () => {
  await worker?.kill();
  await h.close();
});

test('a FIFO named AGENTS.md (root and nested) stops neither its own run nor another run on the same worker', async () => {
  // A worker of its own process: a read that blocks its main thread must not freeze this test.
  worker = await WorkerProcess.start(h);
  h.model.setScenario('fifo-root', [{ toolCalls: [{ id: 'r1', name: 'glob', arguments: { pattern: '*' } }] }, { text: 'Root done.' }]);
  h.model.setScenario('fifo-nested', [{ toolCalls: [{ id: 'n1', name: 'read_file', arguments: { file_path: 'sub/x.txt' } }] }, { text: 'Nested done.' }]);
  h.model.setScenario('fifo-other', [{ toolCalls: [{ id: 'o1', name: 'read_file', arguments: { file_path: 'notes.md' } }] }, { text: 'Other done.' }]);
  const root = h.workspace();
  execFileSync('mkfifo', [path.join(root, 'AGENTS.md')]);
  const nested = h.workspace({ 'AGENTS.md': 'Root rule.\n', 'sub/x.txt': 'x\n' });
  execFileSync('mkfifo', [path.join(nested, 'sub/AGENTS.md')]);
  const rootRun = await h.start({ prompt: 'root', model: 'fifo-root', workspace: root, stream: false });
  const nestedRun = await h.start({ prompt: 'nested', model: 'fifo-nested', workspace: nested, stream: false });
  const other = await h.start({ prompt: 'other', model: 'fifo-other', workspace: h.workspace({ 'notes.md': 'notes\n' }), stream: false });
  const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the worker is stuck')), 45_000))]);
  try {
    expect(await within(other.result())).toMatchObject({ text: 'Other done.' });
    expect(await within(rootRun.result())).toMatchObject({ text: 'Root done.' });
    expect(await within(nestedRun.result())).toMatchObject({ text: 'Nested done.' });
  } finally {
    // Frees a worker that did block on a FIFO (before the safe open), so that it can be stopped: a
    // writer that opens and closes gives a blocked reader its end of file. Without a reader the
    // non-blocking open fails (ENXIO) instead of leaving a writer waiting for ever.
    for (const fifo of [path.join(root, 'AGENTS.md'), path.join(nested, 'sub/AGENTS.md')]) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader: nothing was blocked on it.
      }
    }
  }
  expect((await rootRun.query(statusQuery)).projectInstructions).toEqual({ files: [], error: expect.stringMatching(/^AGENTS\.md: Not a regular file: AGENTS\.md is a FIFO/) });
  expect((await nestedRun.query(statusQuery)).projectInstructions).toEqual({
    files: ['AGENTS.md'],
    error: expect.stringMatching(/^sub\/AGENTS\.md: Not a regular file: sub\/AGENTS\.md is a FIFO/),
  });
});

test(`a symlink flipped between a workspace file and a host file never gets the host file read (${ROUNDS} rounds)`, async () => {
  const canary = `canary-${randomUUID()}`;
  const outside = mkdtempSync(path.join(os.tmpdir(), 'bareagent-outside-'));
  writeFileSync(path.join(outside, 'secret.md'), `${canary}\n`);
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'bareagent-ws-'));
  mkdirSync(path.join(workspace, 'sub'));
  writeFileSync(path.join(workspace, 'sub/inside.md'), 'Inside rule.\n');
  symlinkSync('inside.md', path.join(workspace, 'sub/AGENTS.md'));
  symlinkSync('sub/inside.md', path.join(workspace, 'AGENTS.md'));
  // The flipper: another process swapping the links atomically (rename), as a background job would.
  const flip = `
    const fs = require('fs'); const ws = ${JSON.stringify(workspace)}; const out = ${JSON.stringify(path.join(outside, 'secret.md'))};
    for (let i = 0; ; i++) {
      const outsideNow = i % 2 === 0;
      for (const [link, inside] of [['sub/AGENTS.md', 'inside.md'], ['AGENTS.md', 'sub/inside.md']]) {
        const tmp = ws + '/' + link + '.tmp';
        try { fs.unlinkSync(tmp); } catch {}
        fs.symlinkSync(outsideNow ? out : inside, tmp);
        fs.renameSync(tmp, ws + '/' + link);
      }
    }`;
  const flipper = spawn(process.execPath, ['-e', flip], { stdio: 'ignore' });
  let insideSeen = 0;
  let refused = 0;
  try {
    await new Promise((r) => setTimeout(r, 200));
    for (let round = 0; round < ROUNDS; round++) {
      const found = round % 2 === 0 ? await readNestedInstructions({ workspace, dirs: ['sub'], maxChars: 10_000 }) : await readProjectInstructions({ workspace });
      expect(found.text).not.toContain(canary);
      expect(found.error ?? '').not.toContain(canary);
      if (found.text.includes('Inside rule.')) insideSeen += 1;
      if (found.error) refused += 1;
    }
  } finally {
    flipper.kill('SIGKILL');
    rmSync(outside, { recursive: true, force: true });
  }
  // The flip really happened under the reads: some found the workspace's file, some were refused.
  expect(insideSeen).toBeGreaterThan(0);
  expect(refused).toBeGreaterThan(0);
  console.log(`symlink race: ${ROUNDS} reads, ${insideSeen} read the workspace file, ${refused} refused, 0 read the host file`);
});

test("an mcp.json or settings.json linked to another workspace's file is refused, not used", async () => {
  const other = mkdtempSync(path.join(os.tmpdir(), 'bareagent-other-'));
  mkdirSync(path.join(other, '.bareagent'));
  writeFileSync(path.join(other, '.bareagent/mcp.json'), JSON.stringify({ mcpServers: { theirs: { command: 'node', env: { THEIR_TOKEN: 'x' } } } }));
  writeFileSync(path.join(other, '.bareagent/settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: 'theirs' }] }] } }));
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'bareagent-ws-'));
  mkdirSync(path.join(workspace, '.bareagent'));
  symlinkSync(path.join(other, '.bareagent/mcp.json'), path.join(workspace, '.bareagent/mcp.json'));
  symlinkSync(path.join(other, '.bareagent/settings.json'), path.join(workspace, '.bareagent/settings.json'));
  const read = await createReadWorkspaceSettings(undefined)({ workspace });
  expect(read.files).toEqual([]);
  expect(read.hooks).toEqual([]);
  expect(read.mcpServers).toEqual([]);
  expect(read.errors).toEqual([
    expect.stringMatching(/^\.bareagent\/(settings|mcp)\.json: .*outside the workspace/),
    expect.stringMatching(/^\.bareagent\/(settings|mcp)\.json: .*outside the workspace/),
  ]);
});
