import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Harness } from '../support/harness';
import { cliEnv } from '../support/cli';
import { PtyTerminal } from '../support/terminal';

/**
 * Ctrl-C while `bareagent run` follows a model that thinks, in a real terminal: the spinner goes,
 * the screen says the run goes on and how to reach it again, and the run does go on.
 */
const ROOT = path.resolve(__dirname, '../..');
const suffix = randomUUID().slice(0, 8);
let h: Harness;
let pane: PtyTerminal | undefined;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker(); // a worker that stays: the run must outlive the command
});
afterAll(async () => {
  pane?.close();
  await h.close();
});

test('Ctrl-C while the model thinks clears the spinner and prints the follow and cancel lines', async () => {
  const model = `interrupt-${suffix}`;
  const id = `${model}-run`;
  h.model.setScenario(model, [{ text: 'SLOW ANSWER', delayMs: 60_000 }]);
  const env = { ...cliEnv(h), OPENAI_BASE_URL: h.model.url, OPENAI_API_KEY: 'sk-test' };
  const assignments = Object.entries(env).map(([key, value]) => `${key}='${value}'`);
  const cli = `node ${path.join(ROOT, 'bin/bareagent.js')} run 'think hard' --model ${model} --workspace ${h.workspace()} --id ${id}`;
  pane = PtyTerminal.start(`env -u NO_COLOR -u FORCE_COLOR -u CI ${assignments.join(' ')} ${cli}; echo "EXIT=$?"; sleep 600`, { cols: 160, rows: 40, env: {} });
  await pane.waitFor(/thinking · step 1/, 120_000);
  pane.keys('C-c');
  const screen = await pane.waitFor(/EXIT=\d+/, 30_000);
  expect(screen).toContain(`Stopped following ${id}; the run goes on.`);
  expect(screen).toContain(`bareagent follow ${id}`);
  expect(screen).toContain(`bareagent cancel ${id}`);
  expect(screen).toContain('EXIT=130');
  expect(screen).not.toMatch(/thinking ·/);
  const handle = h.client.workflow.getHandle(id);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await handle.terminate('test over');
}, 240_000);
