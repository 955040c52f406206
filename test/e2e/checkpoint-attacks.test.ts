import { randomUUID } from 'node:crypto';
import { lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureStore, storeFor } from '../../src/checkpoints/store';
import { checkpointsQuery, stepsQuery } from '../../src/common/contract';
import { cliEnv, runCli } from '../support/cli';
import { Harness } from '../support/harness';

/**
 * What the outside red team did to checkpoints, through real runs, the real worker and git, and
 * the CLI as a user runs it: each attack is checked by its effect on the user's bytes, a file
 * outside the workspace, or the screen.
 */
const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-ckpt-attacks-'));
process.env.BAREAGENT_HOME = home;
let h: Harness;
let env: Record<string, string>;
const suffix = randomUUID().slice(0, 8);
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
  env = { ...cliEnv(h), BAREAGENT_HOME: home, BAREAGENT_WORKFLOW_BUNDLE: h.env.bundlePath };
});
afterAll(() => h.close());

/** Each CLI call starts a query worker for the closed run: seconds each on a loaded machine. */
const CLI_TEST_MS = 400_000;
const ESC = '\x1b';
const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });

async function finishedRun(name: string, workspace: string, toolCalls: ReturnType<typeof call>[], permissionMode: 'auto' | 'bypass') {
  const model = `attack-${name}-${suffix}`;
  h.model.setScenario(model, [...toolCalls.map((c) => ({ text: c.name, toolCalls: [c] })), { text: 'done' }]);
  const run = await h.start({ prompt: name, model, workspace, permissionMode, stream: false }, `attack-${name}-${suffix}`);
  await run.result();
  return run;
}

test("a .gitignore edit that hides the user's later work: rewind refuses naming it, --force keeps it, --checkpoint brings it back", async () => {
  const workspace = h.workspace({ '.gitignore': 'node_modules\n', 'src/app.js': 'step 0\n' });
  const run = await finishedRun('gitignore', workspace, [call('g1', 'edit_file', { file_path: '.gitignore', old_text: 'node_modules', new_text: 'node_modules\nsrc/' })], 'auto');
  writeFileSync(path.join(workspace, 'src', 'app.js'), "the user's work\n");
  const refused = await runCli(['rewind', run.workflowId, '--step', '0'], env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('no checkpoint holds');
  expect(refused.stderr).toContain('! src/app.js');
  expect(readFileSync(path.join(workspace, 'src', 'app.js'), 'utf8')).toBe("the user's work\n");
  const forced = await runCli(['rewind', run.workflowId, '--step', '0', '--force'], env);
  expect(forced.code).toBe(0);
  expect(forced.stdout).toContain('kept src/app.js');
  expect(readFileSync(path.join(workspace, 'src', 'app.js'), 'utf8')).toBe('step 0\n');
  const kept = /--checkpoint ([0-9a-f]{40})/.exec(forced.stdout)![1]!;
  const back = await runCli(['rewind', run.workflowId, '--checkpoint', kept], env);
  expect(back.code).toBe(0);
  expect(readFileSync(path.join(workspace, 'src', 'app.js'), 'utf8')).toBe("the user's work\n");
}, CLI_TEST_MS);

test("a symlink planted over the store's info/attributes does not make the worker overwrite the file it points at (auto mode)", async () => {
  const workspace = h.workspace({ 'a.txt': 'a\n' });
  const store = storeFor(realpathSync(workspace));
  await ensureStore(store);
  const victim = path.join(mkdtempSync(path.join(os.tmpdir(), 'bareagent-victim-')), 'operator.conf');
  writeFileSync(victim, 'the operator\n');
  rmSync(path.join(store, 'info', 'attributes'));
  symlinkSync(victim, path.join(store, 'info', 'attributes'));
  const run = await finishedRun('attributes', workspace, [call('a1', 'write_file', { file_path: 'b.txt', content: 'b\n' })], 'auto');
  expect(readFileSync(victim, 'utf8')).toBe('the operator\n');
  expect(lstatSync(path.join(store, 'info', 'attributes')).isSymbolicLink()).toBe(false);
  const steps = await run.query(stepsQuery);
  expect(steps[0]!.checkpoint).toEqual(expect.objectContaining({ changed: 1 }));
}, CLI_TEST_MS);

test('file names holding terminal sequences print escaped in diff and rewind, refusal included', async () => {
  const clipboard = `clip${ESC}]52;c;aGVsbG8=\x07.txt`;
  const erase = `erase${ESC}[2K${ESC}[1A\u202e.txt`;
  const workspace = h.workspace({ 'plain.txt': 'plain\n' });
  const run = await finishedRun('names', workspace, [call('n1', 'bash', { command: `printf 'one\\n' > "$(printf 'clip\\033]52;c;aGVsbG8=\\007.txt')" && printf 'two\\n' > "$(printf 'erase\\033[2K\\033[1A\\342\\200\\256.txt')"` })], 'bypass');
  expect(readFileSync(path.join(workspace, clipboard), 'utf8')).toBe('one\n');
  const raw = (text: string) => text.includes(ESC) || text.includes('\u202e') || text.includes('\x07');
  for (const args of [['diff', run.workflowId], ['diff', run.workflowId, '--stat']]) {
    const diff = await runCli(args, env);
    expect(diff.code).toBe(0);
    expect(raw(diff.stdout + diff.stderr)).toBe(false);
  }
  writeFileSync(path.join(workspace, erase), 'the user\n');
  const refused = await runCli(['rewind', run.workflowId, '--step', '0'], env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('M erase\\x1b[2K\\x1b[1A\\u202e.txt');
  expect(raw(refused.stderr)).toBe(false);
  const forced = await runCli(['rewind', run.workflowId, '--step', '0', '--force'], env);
  expect(forced.code).toBe(0);
  expect(forced.stdout).toContain('removed  clip\\x1b]52;c;aGVsbG8=\\x07.txt');
  expect(raw(forced.stdout + forced.stderr)).toBe(false);
}, CLI_TEST_MS);

test('FIFOs named .gitignore, sub/.gitignore and .gitattributes do not hold up the checkpoint; they and a nested repository are named', async () => {
  const workspace = h.workspace({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
  const command = 'mkdir lib && git -C lib init -q && echo x > lib/x.c && mkfifo .gitignore sub/.gitignore .gitattributes && echo new > new.txt';
  const run = await finishedRun('fifo', workspace, [call('f1', 'bash', { command })], 'bypass');
  // The run finished: its step-1 checkpoint was taken (not an error) with the FIFOs in place.
  const steps = await run.query(stepsQuery);
  expect(steps[0]!.checkpoint).toEqual(expect.objectContaining({ changed: 1 }));
  const view = await run.query(checkpointsQuery);
  expect(view.leftOut).toEqual(expect.arrayContaining(['lib/ (its own git repository)', '.gitignore (a FIFO or device: read as empty)', 'sub/.gitignore (a FIFO or device: read as empty)', '.gitattributes (a FIFO or device: not read)']));
  const diff = await runCli(['diff', run.workflowId], env);
  expect(diff.stdout).toContain('+new');
  expect(diff.stderr).toContain('lib/ (its own git repository)');
  // The FIFO .gitattributes would block git's checkout: named, and removed only with --force.
  const refused = await runCli(['rewind', run.workflowId, '--step', '0'], env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('! .gitattributes (a FIFO or device');
  const forced = await runCli(['rewind', run.workflowId, '--step', '0', '--force'], env);
  expect(forced.code).toBe(0);
  expect(forced.stdout).toContain('removed .gitattributes');
  expect(forced.stdout).toContain('lib/ (its own git repository)');
  expect(readFileSync(path.join(workspace, 'lib', 'x.c'), 'utf8')).toBe('x\n');
}, CLI_TEST_MS);
