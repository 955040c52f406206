import { spawn as spawnChild } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type IPty } from '@lydell/node-pty';
import { Terminal } from '@xterm/headless';
import { isTemporalServer } from '../../src/server/dev-server';
import { runCli } from '../support/cli';
import { freePort } from '../support/free-port';

/**
 * `npm run demo` as a new user sees it, in a real terminal (node-pty, the screen kept by
 * @xterm/headless): the one question asked there and answered with a keypress, the diff of what
 * the agent changed, the next steps; then `bareagent server stop` stops the server the demo left
 * running, by its recorded pid. Its own server (a free port, a fresh BAREAGENT_HOME), so that the
 * demo is the one that starts it.
 */
const ROOT = path.resolve(__dirname, '../..');
const DEMO_MS = 240_000;

interface Screen {
  pty: IPty;
  /** Every line the terminal shows or scrolled past, as text. */
  text(): string;
  exited: Promise<number>;
}

function openTerminal(args: string[], env: Record<string, string>): Screen {
  const term = new Terminal({ cols: 160, rows: 50, scrollback: 10_000, allowProposedApi: true });
  const pty = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), ...args], { name: 'xterm-256color', cols: 160, rows: 50, cwd: ROOT, env: { ...process.env, ...env } as Record<string, string> });
  pty.onData((data) => term.write(data));
  const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
  const text = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n');
  };
  return { pty, text, exited };
}

async function waitForText(screen: Screen, pattern: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = screen.text();
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}:\n${text.slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Whether a process runs: one that exited and waits to be reaped (a zombie, its parent gone) does not. */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

let serverPid: number | undefined;

afterAll(() => {
  // Only when the test failed before `server stop` did: the demo's server, by the pid it recorded.
  if (serverPid !== undefined) {
    try {
      process.kill(serverPid, 'SIGTERM');
    } catch {
      // gone
    }
  }
});

test(
  'the demo asks its one question in the terminal, shows its diff and the next steps, removes its copy; server stop stops the server it left',
  async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-demo-home-'));
    const [port, uiPort] = [await freePort(), await freePort()];
    const address = `127.0.0.1:${port}`;
    const env = { BAREAGENT_HOME: home, TEMPORAL_ADDRESS: address, BAREAGENT_UI_PORT: String(uiPort) };
    const screen = openTerminal(['demo'], env);
    try {
      await waitForText(screen, /Allow bash\(node test\.js\)\? \[y\/N\/a\]/, DEMO_MS);
      if (existsSync(path.join(home, 'server.pid'))) serverPid = Number(readFileSync(path.join(home, 'server.pid'), 'utf8'));
      // Not pre-allowed: the run waits on this terminal; nothing ran yet.
      expect(screen.text()).not.toContain('1 passed, 0 failed');
      screen.pty.write('y\r');
      expect(await screen.exited).toBe(0);
    } finally {
      screen.pty.kill();
    }
    const shown = screen.text();
    expect(shown).toContain('1 passed, 0 failed');
    expect(shown).toContain('The test passes.');
    // The diff of what the agent changed, from the run's checkpoints.
    expect(shown).toMatch(/What the agent changed \(bareagent diff bareagent-demo-\S+\):/);
    expect(shown).toContain("-  return 'Hello, world!';");
    expect(shown).toContain('+  return `Hello, ${name}!`;');
    // The next steps, and how to stop the server it started.
    expect(shown).toContain('With a real model: OPENAI_API_KEY=sk-... bareagent run');
    expect(shown).toContain("The approvers' page: bareagent ui");
    expect(shown).toMatch(new RegExp(`Web UI: http://127\\.0\\.0\\.1:${uiPort}/namespaces/default/workflows/bareagent-demo-\\S+`));
    expect(shown).toContain('stop it with: bareagent server stop');
    // Its copy of the sample workspace is gone.
    const copy = /Workspace \(a copy of demo\/workspace, removed at the end\): (\S+)/.exec(shown)?.[1];
    expect(copy).toBeDefined();
    expect(existsSync(copy as string)).toBe(false);

    expect(serverPid).toBeGreaterThan(1);
    expect(await isTemporalServer(address)).toBe(true);
    const stop = await runCli(['server', 'stop'], env);
    expect(stop.stdout).toContain(`Stopped the Temporal dev server (pid ${serverPid}).`);
    expect(stop.code).toBe(0);
    expect(running(serverPid as number)).toBe(false);
    serverPid = undefined;
    expect(await isTemporalServer(address)).toBe(false);
    expect(existsSync(path.join(home, 'server.pid'))).toBe(false);
    const again = await runCli(['server', 'stop'], env);
    expect(again.stdout).toContain('No Temporal server started by bareagent runs in the background here');
    expect(again.code).toBe(1);
  },
  DEMO_MS + 120_000,
);

test('server stop never signals a pid that is no longer the server it recorded', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-stop-home-'));
  // A process of ours that took the recorded pid's place: it must live on.
  const other = spawnChild('sleep', ['300'], { stdio: 'ignore' });
  try {
    writeFileSync(path.join(home, 'server.pid'), String(other.pid));
    const stop = await runCli(['server', 'stop'], { BAREAGENT_HOME: home });
    expect(stop.stdout).toContain(`named pid ${other.pid}, but it is not the Temporal dev server of ${home} (sleep 300)`);
    expect(stop.code).toBe(1);
    expect(running(other.pid as number)).toBe(true);
    expect(existsSync(path.join(home, 'server.pid'))).toBe(false);
  } finally {
    other.kill('SIGTERM');
  }
});
