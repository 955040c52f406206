import { existsSync } from 'node:fs';
import path from 'node:path';
import { Harness } from '../support/harness';
import { cliEnv, runCli } from '../support/cli';
import { pendingRequest } from '../support/wait-for';

let h: Harness;
let env: Record<string, string>;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
  env = cliEnv(h);
});
afterAll(() => h.close());

test('run without a terminal says how to answer; approve from another shell lets it finish', async () => {
  h.model.setScenario('cli-approve', [
    { text: 'Cleaning up.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] },
    { text: 'Build folder removed.' },
  ]);
  const workspace = h.workspace({ 'build/out.js': 'x' });
  let announced: (() => void) | undefined;
  const instructions = new Promise<void>((resolve) => (announced = resolve));
  const run = runCli(['run', 'remove the build folder', '--model', 'cli-approve', '--workspace', workspace, '--id', 'cli-approve-1'], env, (out) => {
    if (/bareagent approve cli-approve-1 [0-9a-f]{8}-1/.test(out)) announced?.();
  });
  await instructions;
  const status = await runCli(['status'], env);
  expect(status.stdout).toContain('cli-approve-1');
  expect(status.stdout).toContain('bash rm -rf build');
  const approve = await runCli(['approve', 'cli-approve-1'], env);
  expect(approve).toMatchObject({ code: 0 });
  // It shows the question it answers, whole, before it answers.
  expect(approve.stderr).toContain('Allow bash(rm -rf build)?');
  expect(approve.stdout).toMatch(/allowed [0-9a-f]{8}-1 in cli-approve-1/);
  const finished = await run;
  expect(finished.code).toBe(0);
  expect(finished.stdout).toContain('⏺ bash rm -rf build');
  expect(finished.stdout).toContain('temporal workflow signal --workflow-id cli-approve-1 --name permissionDecision');
  expect(finished.stdout).toContain('Build folder removed.');
  expect(existsSync(path.join(workspace, 'build'))).toBe(false);
});

test('deny from another shell, with a reason; a second answer is refused with a clear message', async () => {
  h.model.setScenario('cli-deny', [
    {
      toolCalls: [
        { id: 'call_push', name: 'bash', arguments: { command: 'git push --force' } },
        { id: 'call_tag', name: 'bash', arguments: { command: 'git tag v1' } },
      ],
    },
    { text: 'Not pushed.' },
  ]);
  const handle = await h.start({ prompt: 'push', model: 'cli-deny', workspace: h.workspace() }, 'cli-deny-1');
  const push = await pendingRequest(handle, 'call_push');
  expect(await runCli(['deny', 'cli-deny-1', push.requestId, '--reason', 'never force-push'], env)).toMatchObject({ code: 0 });
  await pendingRequest(handle, 'call_tag');
  const again = await runCli(['approve', 'cli-deny-1', push.requestId], env);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`Refused: permission request ${push.requestId} was already decided`);
  expect(await runCli(['deny', 'cli-deny-1'], env)).toMatchObject({ code: 0 });
  expect(await handle.result()).toMatchObject({ text: 'Not pushed.' });
  const finished = await runCli(['approve', 'cli-deny-1'], env);
  expect(finished.code).toBe(2);
  expect(finished.stderr).toContain('is not waiting for a permission decision');
});

test('approve --always allows the call and the same call later; --rule names a wider one; status lists them', async () => {
  h.model.setScenario('cli-always', [
    { toolCalls: [{ id: 'call_t1', name: 'bash', arguments: { command: 'touch one.txt' } }] },
    { toolCalls: [{ id: 'call_t2', name: 'bash', arguments: { command: 'touch one.txt' } }] },
    { toolCalls: [{ id: 'call_mk', name: 'bash', arguments: { command: 'mkdir -p out' } }] },
    { toolCalls: [{ id: 'call_mk2', name: 'bash', arguments: { command: 'mkdir -p out/deeper' } }] },
    { text: 'Made them.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'make', model: 'cli-always', workspace, stream: false }, 'cli-always-1');
  const t1 = await pendingRequest(handle, 'call_t1');
  expect(await runCli(['deny', 'cli-always-1', '--always'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown option '--always'") });
  const bad = await runCli(['approve', 'cli-always-1', '--rule', 'bash(touch*)'], env);
  expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--rule goes with --always') });
  const always = await runCli(['approve', 'cli-always-1', '--always'], env);
  expect(always).toMatchObject({ code: 0 });
  expect(always.stdout).toContain(`allowed ${t1.requestId} in cli-always-1; bash(touch one.txt) allowed for the rest of the run`);
  // call_t2 is the same command: the next question is mkdir.
  const mk = await pendingRequest(handle, 'call_mk');
  const status = await runCli(['status', 'cli-always-1'], env);
  expect(status.stdout).toContain('allowed for the rest of this run: bash(touch one.txt)');
  const wider = await runCli(['approve', 'cli-always-1', mk.requestId, '--always', '--rule', 'bash(mkdir -p out*)', '--json'], env);
  expect(JSON.parse(wider.stdout)).toEqual({ requestId: mk.requestId, decision: 'allow_always', rule: 'bash(mkdir -p out*)' });
  expect(await handle.result()).toMatchObject({ text: 'Made them.' });
  expect(existsSync(path.join(workspace, 'out/deeper'))).toBe(true);
});
