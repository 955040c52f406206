import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Harness } from '../support/harness';
import { cliEnv, runCli } from '../support/cli';
import { freePort } from '../support/free-port';

/**
 * The CLI's edges, as a new user meets them: --version, an unknown flag, a validation error, a run
 * that does not exist, and set-up mistakes found before a durable run exists (no run in `list`).
 */
let h: Harness;
let env: Record<string, string>;
/** An endpoint where nothing listens. */
let downUrl: string;
const suffix = randomUUID().slice(0, 8);
const version = (JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  h = await Harness.create(); // no worker: `run` would start one here, after its checks
  downUrl = `http://127.0.0.1:${await freePort()}/v1`;
  env = { ...cliEnv(h), BAREAGENT_WORKFLOW_BUNDLE: h.env.bundlePath, OPENAI_BASE_URL: h.model.url, OPENAI_API_KEY: 'sk-test' };
});
afterAll(() => h.close());

async function listedIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of h.client.workflow.list({ query: `TaskQueue = '${h.taskQueue}'` })) ids.push(run.workflowId);
  return ids;
}

test('--version prints the package version; the doctor has it as a row', async () => {
  const result = await runCli(['--version'], env);
  expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
});

test('an unknown flag gets one line and a "did you mean", not the help', async () => {
  const result = await runCli(['list', '--jsn'], env);
  expect(result.code).toBe(2);
  expect(result.stderr.trim().split('\n')).toEqual(["error: unknown option '--jsn'", '(Did you mean --json?)']);
});

test('a validation error speaks of the flag, not the input field', async () => {
  const result = await runCli(['run', 'x', '--max-iterations', '0', '--workspace', h.workspace()], env);
  expect(result.code).toBe(2);
  expect(result.stderr.trim()).toBe('--max-iterations must be a positive integer (at most 100000)');
});

test('fork and resume check their flags before they look for the run (nothing started or fetched first)', async () => {
  for (const command of ['fork', 'resume']) {
    const result = await runCli([command, 'no-such-run', '--max-iterations', '0', '--max-cost', '0'], env);
    expect(result.code).toBe(2);
    // Not "No run named no-such-run": the origin was never read.
    expect(result.stderr.trim()).toBe('--max-iterations must be a positive integer (at most 100000)\n--max-cost must be a positive number of USD, such as 0.50');
  }
});

test('status of a run that does not exist says so in our words', async () => {
  const result = await runCli(['status', 'no-such-run'], env);
  expect(result.code).toBe(2);
  expect(result.stderr.trim()).toBe('No run named no-such-run in namespace default (bareagent list shows the runs)');
});

test('a missing workspace, a file as workspace, an unreachable endpoint, a missing model: named, in seconds, and no run created', async () => {
  const before = await listedIds();
  const missing = path.join(h.workspace(), 'not-here');
  const file = path.join(h.workspace(), 'a-file');
  writeFileSync(file, 'x');
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['--workspace', missing, '--model', 'm'], {}, new RegExp(`^Workspace ${missing} does not exist\\.\\n  Create it, or pass another directory with --workspace`)],
    [['--workspace', file, '--model', 'm'], {}, new RegExp(`^Workspace ${file} is not a directory\\.`)],
    [['--workspace', h.workspace(), '--model', 'm'], { OPENAI_BASE_URL: downUrl }, new RegExp(`^Cannot reach the model endpoint ${escape(downUrl)} \\(OPENAI_BASE_URL\\): ECONNREFUSED\\.\\n  Start the model server, or set OPENAI_BASE_URL`)],
    [['--workspace', h.workspace()], { BAREAGENT_MODEL: '' }, /^No model named\.\n  Pass --model <name>, or set BAREAGENT_MODEL\./],
    [['--workspace', h.workspace(), '--model', 'm'], { OPENAI_BASE_URL: '', OPENAI_API_KEY: '' }, /^OPENAI_API_KEY is not set, and the endpoint it would go to \(https:\/\/api\.openai\.com\/v1, OPENAI_BASE_URL unset\) needs one\./],
  ];
  for (const [args, extra, expected] of cases) {
    const started = Date.now();
    const result = await runCli(['run', 'do it', '--id', `edge-${suffix}-${cases.findIndex((c) => c[0] === args)}`, ...args], { ...env, ...extra });
    console.log(`${args.join(' ')}: ${Date.now() - started} ms`);
    expect({ code: result.code, stderr: result.stderr.trim() }).toMatchObject({ code: 2, stderr: expect.stringMatching(expected) });
    expect(result.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
  }
  expect(await listedIds()).toEqual(before);
  // Nothing was started at all: not even visible later.
  await expect(h.client.workflow.getHandle(`edge-${suffix}-0`).describe()).rejects.toThrow(/not found/);
}, 300_000);

test('doctor --model: a row for the model endpoint, ok when it answers, the fix when it does not', async () => {
  const ok = await runCli(['doctor', '--model'], env);
  expect(ok.stdout).toMatch(/bareagent\s+ok\s+required\s+v\d+\.\d+\.\d+/);
  expect(ok.stdout).toMatch(new RegExp(`model endpoint\\s+ok\\s+required\\s+${escape(h.model.url)} \\(OPENAI_BASE_URL\\) answers`));
  const down = await runCli(['doctor', '--model'], { ...env, OPENAI_BASE_URL: downUrl });
  expect(down.code).toBe(1);
  expect(down.stdout).toMatch(new RegExp(`model endpoint\\s+MISSING\\s+required\\s+Cannot reach the model endpoint ${escape(downUrl)} \\(OPENAI_BASE_URL\\): ECONNREFUSED`));
  expect(down.stdout).toContain('fix: Start the model server, or set OPENAI_BASE_URL to one that answers.');
}, 120_000);

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
