import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { statusQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';
import { cliEnv, runCli } from '../support/cli';
import { PtyTerminal } from '../support/terminal';
import { pendingRequest } from '../support/wait-for';

/**
 * The terminal's question on a real terminal (a pseudo-terminal rendered by xterm.js): shown whole (a command padded with blanks
 * shows its tail), withdrawn with no keypress when another process answers, and left cleanly with
 * Ctrl-C while the run waits on.
 */
const ROOT = path.resolve(__dirname, '../..');

let h: Harness;
let pane: PtyTerminal | undefined;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterEach(() => pane?.close());
afterAll(() => h.close());

function runInPane(model: string, workspace: string, id: string): PtyTerminal {
  const env = { ...cliEnv(h), NO_COLOR: '1' };
  const assignments = Object.entries(env).map(([key, value]) => `${key}='${value}'`);
  const cli = `node ${path.join(ROOT, 'bin/bareagent.js')} start --follow 'clean up' --model ${model} --workspace ${workspace} --id ${id}`;
  return PtyTerminal.start(`env -u FORCE_COLOR -u CI ${assignments.join(' ')} ${cli}; echo "EXIT=$?"; sleep 600`, { cols: 160, rows: 50, env: {} });
}

test('a padded command shows its tail in the question; an approval from another shell withdraws the question with no keypress', async () => {
  const model = `race-${randomUUID().slice(0, 8)}`;
  const padded = `ls -la${'\u2800'.repeat(3000)}; touch PADDED.txt`;
  h.model.setScenario(model, [
    { toolCalls: [{ id: 'call_pad', name: 'bash', arguments: { command: padded } }] },
    { toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] },
    { text: 'Cleaned.' },
  ]);
  const workspace = h.workspace({ 'build/x': 'x' });
  const id = `${model}-run`;
  pane = runInPane(model, workspace, id);

  const asking = await pane.waitFor(/Allow bash\(ls -la.*\)\? \[y\/N/, 90_000);
  expect(asking).toContain('Allow bash(ls -la\\u2800{×3000}; touch PADDED.txt)?');
  expect(asking).toContain('⚠ contains hidden or blank-looking characters');
  pane.keys('n', 'Enter');

  await pane.waitFor(/Allow bash\(rm -rf build\)\? \[y\/N\/a\]/, 60_000);
  const handle = h.client.workflow.getHandle(id);
  await pendingRequest(handle, 'call_rm');
  const approved = await runCli(['approve', id, '--reason', 'fine from shell two'], cliEnv(h));
  expect(approved.code).toBe(0);
  // No key pressed in the pane: the question goes by itself, saying who answered, and the run ends.
  const screen = await pane.waitFor(/EXIT=\d+/, 60_000);
  expect(screen).toMatch(/Answered elsewhere: allowed \(fine from shell two \(bareagent approve by [^@\s]+@\S+\)\)/);
  expect(screen).toContain('EXIT=0');
  expect(screen).not.toContain('Could not send the answer');
  expect(existsSync(path.join(workspace, 'build'))).toBe(false);
  expect(existsSync(path.join(workspace, 'PADDED.txt'))).toBe(false);
}, 240_000);

test('Ctrl-C at the question leaves cleanly: the run goes on waiting, and the lines say how to reach it', async () => {
  const model = `leave-${randomUUID().slice(0, 8)}`;
  h.model.setScenario(model, [{ toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] }, { text: 'Cleaned.' }]);
  const workspace = h.workspace({ 'build/x': 'x' });
  const id = `${model}-run`;
  pane = runInPane(model, workspace, id);
  await pane.waitFor(/Allow bash\(rm -rf build\)\? \[y\/N\/a\]/, 90_000);
  pane.keys('C-c');
  const screen = await pane.waitFor(/EXIT=\d+/, 30_000);
  expect(screen).toContain('EXIT=130');
  expect(screen).toContain(`Run ${id} goes on and waits for an answer`);
  expect(screen).toContain(`bareagent follow ${id}`);
  expect(screen).toMatch(new RegExp(`bareagent approve ${id} [0-9a-f]{8}-1`));
  expect(screen).toContain(`bareagent cancel ${id}`);
  expect(screen).not.toContain('Could not send the answer');
  const handle = h.client.workflow.getHandle(id);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect((await handle.query(statusQuery)).pendingPermissions).toHaveLength(1);
  await handle.terminate('test over');
}, 180_000);
