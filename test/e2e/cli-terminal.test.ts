import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Harness } from '../support/harness';
import { cliEnv } from '../support/cli';
import { PtyTerminal } from '../support/terminal';

/**
 * `bareagent run` in a real terminal (a pseudo-terminal rendered by xterm.js: test/support/terminal.ts),
 * asserted on what the screen shows: the
 * live display must never overwrite streamed text, must drop a retried attempt's partial text,
 * print the answer whole, ask approvals with y/n, and respect NO_COLOR and narrow terminals.
 */
const ROOT = path.resolve(__dirname, '../..');
const suffix = randomUUID().slice(0, 8);
const INTRO = 'Let me look at the files first.';
const ANSWER = 'Done: wrote note.txt and cleaned build.';

let h: Harness;
let pane: PtyTerminal | undefined;
beforeAll(async () => {
  h = await Harness.create(); // no harness worker: each `run` starts its own, as on a new machine
});
afterEach(() => pane?.close());
afterAll(() => h.close());

/** Small pieces with pauses, so that the spinner ticks between them as a slow model's would. */
function slowly(text: string): { text: string; chunks: string[]; chunkDelayMs: number } {
  return { text, chunks: text.match(/.{1,4}/g) ?? [text], chunkDelayMs: 60 };
}

function command(model: string, workspace: string, id: string, extraEnv: Record<string, string> = {}): string {
  const env = { ...cliEnv(h), OPENAI_BASE_URL: h.model.url, OPENAI_API_KEY: 'sk-test', ...extraEnv };
  const assignments = Object.entries(env).map(([key, value]) => `${key}='${value}'`);
  const cli = `node ${path.join(ROOT, 'bin/bareagent.js')} run 'tidy the workspace' --model ${model} --workspace ${workspace} --id ${id}`;
  return `env -u NO_COLOR -u FORCE_COLOR -u CI ${assignments.join(' ')} ${cli}; echo "EXIT=$?"; sleep 600`;
}

function scriptTidyRun(model: string): void {
  h.model.setScenario(model, [
    { ...slowly(INTRO), toolCalls: [{ id: 'call_write', name: 'bash', arguments: { command: 'echo tidy > note.txt' } }] },
    // The model takes a while on its second turn: the status line shows what the run is doing.
    { ...slowly(ANSWER), delayMs: 2500 },
  ]);
}

test('streamed text and the answer are readable in full, the approval is answered with y, and a second run completes too, answered with a', async () => {
  const workspace = h.workspace({ 'README.md': 'x\n' });
  for (const n of [1, 2]) {
    const model = `tty-${n}-${suffix}`;
    scriptTidyRun(model);
    pane = PtyTerminal.start(command(model, workspace, `${model}-run`), { cols: 160, rows: 40, env: {} });
    const asking = await pane.waitFor(/Allow bash\(echo tidy > note\.txt\)\? \[y\/N\/a\]/, 90_000);
    expect(asking).toContain(INTRO);
    // The second run answers "a": allowed, and the same command for the rest of that run.
    pane.keys(n === 1 ? 'y' : 'a', 'Enter');
    await pane.waitFor(/thinking · step 2 · \d+s · \d+ tokens · 199 iterations left/, 30_000);
    const screen = await pane.waitFor(/EXIT=\d+/, 60_000);
    expect(screen).toContain('EXIT=0');
    const lines = screen.split('\n');
    expect(lines).toContain(INTRO);
    expect(lines).toContain(ANSWER);
    expect(screen).toContain('⏺ bash echo tidy > note.txt');
    if (n === 2) expect(screen).toContain('(and bash(echo tidy > note.txt) for the rest of this run)');
    // The status line lived below the text and left nothing behind.
    expect(screen).not.toMatch(/thinking ·|writing ·|running bash ·/);
    expect(readFileSync(path.join(workspace, 'note.txt'), 'utf8')).toBe('tidy\n');
    pane.close();
    pane = undefined;
  }
}, 240_000);

test('a retried attempt\'s partial text is dropped from the screen, the answer renders as Markdown without colour under NO_COLOR', async () => {
  const model = `tty-retry-${suffix}`;
  h.model.setScenario(model, [
    { ...slowly('PARTIAL-ATTEMPT words that the stream will lose'), breakAfterChunks: 4 },
    slowly('## Summary\n\n- **cleaned** the `build` folder\n- wrote note.txt\n'),
  ]);
  pane = PtyTerminal.start(command(model, h.workspace(), `${model}-run`, { NO_COLOR: '1' }), { cols: 60, rows: 30, env: {} });
  const screen = await pane.waitFor(/EXIT=\d+/, 90_000);
  expect(screen).toContain('EXIT=0');
  expect(screen).toContain('model call retried (attempt 2)');
  expect(screen).not.toContain('PARTIAL');
  // Markdown: the markup is gone, the words remain; no colour escapes were written.
  expect(screen).toMatch(/Summary/);
  expect(screen).toMatch(/cleaned the build folder/);
  expect(screen).not.toContain('**');
  expect(screen).not.toContain('## ');
  expect(pane.written()).not.toMatch(/\x1b\[(?:[0-9;]*;)?(?:1|2|3\d|9\d)m/);
}, 150_000);

test('a narrow terminal gets lines that fit: the status line never wraps into a copy of itself', async () => {
  const model = `tty-narrow-${suffix}`;
  h.model.setScenario(model, [
    { ...slowly('Reading.'), toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } }] },
    slowly(ANSWER),
  ]);
  pane = PtyTerminal.start(command(model, h.workspace({ 'README.md': 'hello\n' }), `${model}-run`), { cols: 40, rows: 20, env: {} });
  const screen = await pane.waitFor(/EXIT=\d+/, 90_000);
  expect(screen).toContain('EXIT=0');
  const joined = pane.screen({ joined: true }).split('\n');
  // Lines the CLI wrote stay within 40 columns (the terminal would have wrapped longer ones).
  for (const line of joined.filter((l) => /^[⏺·]|^\s+⎿/.test(l))) expect([...line].length).toBeLessThanOrEqual(40);
  expect(screen.replace(/\n/g, ' ')).toContain('Done: wrote note.txt and');
  expect(screen).not.toMatch(/step \d+ · \d+s ·/);
}, 150_000);
