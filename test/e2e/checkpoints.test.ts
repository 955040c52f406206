import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { checkpointsQuery, stepsQuery } from '../../src/common/contract';
import { cliEnv, runCli } from '../support/cli';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';

/**
 * Checkpoints through real runs (scripted model, real worker, real git) and the CLI as a user
 * runs it: each step's files come back byte for byte, a fork restores them, a copy leaves the
 * workspace alone, and the workspace's own git repository is never touched.
 */
const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-ckpt-home-'));
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

/** Every file under dir but .git and the ignored *.log, as path → content (or → link target). */
function files(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const child = rel ? `${rel}/${name}` : name;
    if (child === '.git' || name.endsWith('.log')) continue;
    const stats = lstatSync(path.join(dir, child));
    if (stats.isSymbolicLink()) out[child] = `-> ${readlinkSync(path.join(dir, child))}`;
    else if (stats.isDirectory()) Object.assign(out, files(dir, child));
    else out[child] = readFileSync(path.join(dir, child), 'utf8');
  }
  return out;
}

function hashDir(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const child = path.join(rel, name);
      const stats = lstatSync(path.join(dir, child));
      hash.update(`${child}\0${stats.mode}\0${stats.mtimeMs}\0`);
      if (stats.isDirectory()) walk(child);
      else if (stats.isFile()) hash.update(readFileSync(path.join(dir, child)));
    }
  };
  walk('');
  return hash.digest('hex');
}

/** Each CLI call starts a query worker for the closed run: seconds each on a loaded machine. */
const CLI_TEST_MS = 400_000;

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });

/** What the workspace holds after each step (ignored *.log and .git aside). */
const AT: Record<number, Record<string, string>> = {
  0: { '.gitignore': '*.log\n', 'old.txt': 'old\n', 'tracked.txt': 'tracked\n' },
  1: { '.gitignore': '*.log\n', 'a.txt': 'alpha\nbeta\n', 'old.txt': 'old\n', 'tracked.txt': 'tracked\n' },
  2: { '.gitignore': '*.log\n', 'a.txt': 'alpha\nBETA\n', 'old.txt': 'old\n', 'tracked.txt': 'tracked\n' },
  3: { '.gitignore': '*.log\n', 'a.txt': 'alpha\nBETA\n', 'd/e/f.txt': 'deep\n', 'link': '-> a.txt', 'tracked.txt': 'tracked, changed by bash\n' },
};

describe('a run that writes, edits and changes files through bash', () => {
  let origin: WorkflowHandle;
  let workspace: string;
  let dotGit: string;
  beforeAll(async () => {
    workspace = h.workspace({ '.gitignore': '*.log\n', 'old.txt': 'old\n', 'tracked.txt': 'tracked\n', 'keep.log': 'ignored\n' });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', 'tracked.txt', '.gitignore'], { cwd: workspace });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'], { cwd: workspace });
    dotGit = hashDir(path.join(workspace, '.git'));
    const model = `ckpt-${suffix}`;
    h.model.setScenario(model, [
      { text: 'write', toolCalls: [call('c1', 'write_file', { file_path: 'a.txt', content: 'alpha\nbeta\n' })] },
      { text: 'edit', toolCalls: [call('c2', 'edit_file', { file_path: 'a.txt', old_text: 'beta', new_text: 'BETA' })] },
      { text: 'bash', toolCalls: [call('c3', 'bash', { command: 'rm old.txt && mkdir -p d/e && echo deep > d/e/f.txt && ln -s a.txt link && echo "tracked, changed by bash" > tracked.txt && echo more >> keep.log' })] },
      { text: 'read', toolCalls: [call('c4', 'read_file', { file_path: 'a.txt' })] },
      { text: 'done' },
    ]);
    origin = await h.start({ prompt: 'change files', model, workspace, permissionMode: 'bypass', stream: false }, `ckpt-${suffix}`);
    await origin.result();
  }, CLI_TEST_MS);

  test('each step that could change files records a checkpoint; a read-only step does not', async () => {
    const steps = await origin.query(stepsQuery);
    expect(steps.map((s) => [s.step_id, s.checkpoint && 'changed' in s.checkpoint ? s.checkpoint.changed : null])).toEqual([
      [1, 1],
      [2, 1],
      [3, 4],
      [4, null],
      [5, null],
    ]);
    const view = await origin.query(checkpointsQuery);
    expect(view.steps.map((s) => s.step)).toEqual([0, 1, 2, 3]);
    expect(view.store!.startsWith(path.join(home, 'checkpoints'))).toBe(true);
  }, CLI_TEST_MS);

  test('diff shows the whole run, one step, and JSON for scripts', async () => {
    const whole = await runCli(['diff', origin.workflowId, '--json'], env);
    expect(whole.stderr).toBe('');
    expect(JSON.parse(whole.stdout).files.map((f: { status: string; path: string }) => `${f.status} ${f.path}`)).toEqual(['A a.txt', 'A d/e/f.txt', 'A link', 'D old.txt', 'M tracked.txt']);
    const step2 = await runCli(['diff', origin.workflowId, '--step', '2'], env);
    expect(step2.stdout).toContain('-beta\n+BETA\n');
    expect(step2.stdout).not.toContain('tracked');
    const stat = await runCli(['diff', origin.workflowId, '--from', '1', '--step', '3', '--stat'], env);
    expect(stat.stdout).toMatch(/5 files changed/);
    const bad = await runCli(['diff', origin.workflowId, '--step', '9'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--step 9 is past the run's last step (5)");
  }, CLI_TEST_MS);

  test('rewind to each step leaves exactly its files; ignored files and the workspace .git stay as they were', async () => {
    for (const step of [2, 0, 1, 3]) {
      const rewound = await runCli(['rewind', origin.workflowId, '--step', String(step)], env);
      expect(rewound.stderr).toBe('');
      expect(rewound.code).toBe(0);
      expect(files(workspace)).toEqual(AT[step]);
    }
    expect(readFileSync(path.join(workspace, 'keep.log'), 'utf8')).toBe('ignored\nmore\n');
    expect(hashDir(path.join(workspace, '.git'))).toBe(dotGit);
  }, CLI_TEST_MS);

  test('rewind refuses changes made after the last checkpoint unless --force, which keeps them first', async () => {
    writeFileSync(path.join(workspace, 'a.txt'), 'hand edit\n');
    const refused = await runCli(['rewind', origin.workflowId, '--step', '0'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("changed since the run's last checkpoint");
    expect(refused.stderr).toContain('M a.txt');
    expect(readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('hand edit\n');
    const forced = await runCli(['rewind', origin.workflowId, '--step', '0', '--force'], env);
    expect(forced.code).toBe(0);
    const saved = /as checkpoint (\w+)/.exec(forced.stdout)![1]!;
    expect(forced.stdout).toContain('removed  a.txt');
    expect(files(workspace)).toEqual(AT[0]);
    const view = await origin.query(checkpointsQuery);
    expect(execFileSync('git', ['--git-dir', view.store!, 'show', `${saved}:a.txt`]).toString()).toBe('hand edit\n');
  }, CLI_TEST_MS);

  test('rewind --to copies a step into another directory and leaves the workspace untouched', async () => {
    const before = hashDir(workspace);
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'bareagent-to-')), 'step-2');
    const copied = await runCli(['rewind', origin.workflowId, '--step', '2', '--to', dir], env);
    expect(copied.code).toBe(0);
    expect(files(dir)).toEqual(AT[2]);
    expect(hashDir(workspace)).toBe(before);
    rmSync(dir, { recursive: true });
  }, CLI_TEST_MS);

  test("fork --restore-files sees step 1's files before its first turn", async () => {
    const model = `ckpt-fork-${suffix}`;
    h.model.setScenario(model, [{ text: 'look', toolCalls: [call('f1', 'bash', { command: 'cat a.txt; ls' })] }, { text: 'seen' }]);
    const forked = await runCli(['fork', origin.workflowId, '--step', '1', '--restore-files', '--model', model, '--prompt', 'look again', '--id', `ckpt-fork-${suffix}`, '--json'], env);
    expect(forked.code).toBe(0);
    const [, second] = h.model.requestsFor(model);
    const tool = second!.body.messages.filter((m: { role: string }) => m.role === 'tool').at(-1) as { content: string };
    expect(tool.content).toContain('alpha\nbeta\n');
    expect(tool.content).toContain('old.txt');
    expect(files(workspace)).toEqual(AT[1]);
    // The fork's step 0 is the workspace before the restore: rewinding it undoes the restore.
    const undone = await runCli(['rewind', `ckpt-fork-${suffix}`, '--step', '0'], env);
    expect(undone.code).toBe(0);
    expect(files(workspace)).toEqual(AT[0]);
  }, CLI_TEST_MS);
});

test('rewind refuses a run that is still running', async () => {
  const model = `ckpt-wait-${suffix}`;
  h.model.setScenario(model, [{ text: 'ask', toolCalls: [call('w1', 'bash', { command: 'touch x' })] }]);
  const run = await h.start({ prompt: 'wait', model, workspace: h.workspace({ 'f.txt': 'f\n' }), stream: false });
  await waitFor(async () => ((await run.query(checkpointsQuery)).steps.length === 1 ? true : undefined), 'the run-start checkpoint');
  const refused = await runCli(['rewind', run.workflowId, '--step', '0'], env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('is still running');
  await run.cancel();
}, CLI_TEST_MS);

test('a hostile workspace gets nothing past the rules: a denied .env, a link to /etc/passwd, a FIFO, a filter', async () => {
  const workspace = h.workspace({ '.env': 'API_TOKEN=hunter2hunter2\n', '.gitattributes': '* filter=evil diff=evil\n', 'ok.txt': 'fine\n' });
  const model = `ckpt-hostile-${suffix}`;
  h.model.setScenario(model, [
    { text: 'plant', toolCalls: [call('h1', 'bash', { command: 'ln -s /etc/passwd pw && mkfifo pipe && echo sk-test-secret-never-in-history > leak.txt' })] },
    { text: 'done' },
  ]);
  const run = await h.start({ prompt: 'plant', model, workspace, permissionMode: 'bypass', stream: false, permissionRules: { deny: ['read_file(.env)'] } });
  await run.result();
  const view = await run.query(checkpointsQuery);
  const last = view.steps.at(-1)!;
  const listing = execFileSync('git', ['--git-dir', view.store!, 'ls-tree', '-r', last.id]).toString();
  expect(listing.trim().split('\n').map((line) => line.split('\t')[1])).toEqual(['.gitattributes', 'leak.txt', 'ok.txt', 'pw']);
  expect(listing).toMatch(/^120000 blob \w+\tpw$/m);
  const objects = execFileSync('git', ['--git-dir', view.store!, 'cat-file', '--batch-all-objects', '--batch']).toString();
  expect(objects).not.toContain('hunter2');
  expect(objects).not.toContain('root:');
  const diff = await runCli(['diff', run.workflowId], { ...env, OPENAI_API_KEY: 'sk-test-secret-never-in-history' });
  expect(diff.stdout).toContain('+[redacted]');
  expect(diff.stdout).not.toContain('sk-test-secret');
  expect(diff.stdout).not.toContain('hunter2');
}, CLI_TEST_MS);
