import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Harness } from '../support/harness';
import { cliEnv } from '../support/cli';
import { PtyTerminal } from '../support/terminal';

/**
 * What a human approves is what runs, judged on a real terminal (a pseudo-terminal rendered by
 * xterm.js, which carries out the escape and the carriage return as a terminal does): a command whose escape
 * sequence and carriage return would erase its head from the screen shows them written out, with a
 * warning; a blank command is an invalid call, never a question whose "a" would allow every command.
 */
const ROOT = path.resolve(__dirname, '../..');
const SPOOFED = 'ls -la\u001b[2K\rtouch SPOOFED; ls';

let h: Harness;
let pane: PtyTerminal | undefined;
beforeAll(async () => {
  h = await Harness.create();
});
afterEach(() => pane?.close());
afterAll(() => h.close());

test('the spoofed command is shown escaped and flagged; a blank command gets an error result and the next command still asks', async () => {
  const model = `spoof-${randomUUID().slice(0, 8)}`;
  h.model.setScenario(model, [
    { toolCalls: [{ id: 'call_spoof', name: 'bash', arguments: { command: SPOOFED } }] },
    { toolCalls: [{ id: 'call_blank', name: 'bash', arguments: { command: ' ' } }] },
    { toolCalls: [{ id: 'call_next', name: 'bash', arguments: { command: 'touch after.txt' } }] },
    { text: 'All done.' },
  ]);
  const workspace = h.workspace();
  const env = { ...cliEnv(h), OPENAI_BASE_URL: h.model.url, OPENAI_API_KEY: 'sk-test', NO_COLOR: '1' };
  const assignments = Object.entries(env).map(([key, value]) => `${key}='${value}'`);
  const cli = `node ${path.join(ROOT, 'bin/bareagent.js')} run 'list the files' --model ${model} --workspace ${workspace} --id ${model}-run`;
  pane = PtyTerminal.start(`env -u FORCE_COLOR -u CI ${assignments.join(' ')} ${cli}; echo "EXIT=$?"; sleep 600`, { cols: 200, rows: 50, env: {} });

  const asking = await pane.waitFor(/Allow bash\(.*SPOOFED.*\)\? \[y\/N\/a\]/, 90_000);
  expect(asking).toContain('⚠ contains hidden or blank-looking characters');
  expect(asking).toContain('Allow bash(ls -la\\x1b[2K\\rtouch SPOOFED; ls)?');
  expect(asking).toContain('(a: allow bash(ls -la\\x1b[2K\\rtouch SPOOFED; ls) for the rest of this run)');
  // The follower line above the question shows the same.
  expect(asking).toContain('⏺ bash ls -la\\x1b[2K\\rtouch SPOOFED; ls');
  pane.keys('n', 'Enter');

  // The blank command never asks: the next question is about the next real command.
  const next = await pane.waitFor(/Allow bash\(touch after\.txt\)\?/, 60_000);
  expect(next).toContain('bash: command: must not be blank');
  expect(next).not.toMatch(/Allow bash\(\s*\)\?/);
  pane.keys('y', 'Enter');
  const screen = await pane.waitFor(/EXIT=\d+/, 60_000);
  expect(screen).toContain('EXIT=0');
  expect(screen).toContain('All done.');
  expect(existsSync(path.join(workspace, 'SPOOFED'))).toBe(false);
  expect(existsSync(path.join(workspace, 'after.txt'))).toBe(true);
}, 240_000);
