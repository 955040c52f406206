import { spawn, type IPty } from '@lydell/node-pty';
import { Terminal as Emulator } from '@xterm/headless';

/** tmux's names for the keys the tests press, as the bytes a terminal sends for them. */
const KEYS: Record<string, string> = { Enter: '\r', 'C-c': '\x03', 'C-d': '\x04', Escape: '\x1b', Tab: '\t', BSpace: '\x7f' };

/**
 * A real terminal for tests, with no tmux: one shell command on a real pseudo-terminal of a fixed
 * size (@lydell/node-pty: the program sees a TTY, `tput cols`, SIGINT from Ctrl-C through the line
 * discipline) rendered by a headless xterm.js (@xterm/headless), which interprets every cursor move,
 * erase and wrap as a terminal does. `screen()` is what a person would see, with the scrollback, so a
 * redraw that overwrites text shows as the overwritten text; `written()` is every byte the program wrote.
 */
export class PtyTerminal {
  private readonly emulator: Emulator;
  private readonly pty: IPty;
  private output = '';
  private pending = 0;
  private exited = false;

  private constructor(command: string, options: { cols: number; rows: number; env: Record<string, string> }) {
    this.emulator = new Emulator({ cols: options.cols, rows: options.rows, scrollback: 5000, allowProposedApi: true });
    // TERM as a terminal emulator's own; the rest of the test's environment, as a shell started in it would have.
    const env = { ...process.env, TERM: 'xterm-256color', ...options.env } as Record<string, string>;
    // bash, as tmux's default shell is: on Ctrl-C it waits for the command (which handles SIGINT and
    // exits 130) and goes on with the line; dash would quit with it, before `echo EXIT=$?`.
    this.pty = spawn('/bin/bash', ['-c', command], { name: 'xterm-256color', cols: options.cols, rows: options.rows, cwd: process.cwd(), env });
    this.pty.onData((data) => {
      this.output += data;
      this.pending++;
      this.emulator.write(data, () => this.pending--);
    });
    this.pty.onExit(() => (this.exited = true));
  }

  static start(command: string, options: { cols: number; rows: number; env: Record<string, string> }): PtyTerminal {
    return new PtyTerminal(command, options);
  }

  get cols(): number {
    return this.emulator.cols;
  }

  /** The scrollback and the screen, one string per row, trailing blank rows dropped; `joined` undoes the wrapping of long lines. */
  screen(options: { joined?: boolean } = {}): string {
    const buffer = this.emulator.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y);
      if (!line) continue;
      const text = line.translateToString(true);
      if (options.joined && line.isWrapped && rows.length) rows[rows.length - 1] += text;
      else rows.push(text);
    }
    while (rows.length && rows[rows.length - 1] === '') rows.pop();
    return rows.join('\n');
  }

  /** Every byte the program wrote to the terminal, escapes included. */
  written(): string {
    return this.output;
  }

  /** Types keys: tmux's names (Enter, C-c, ...) or literal text. */
  keys(...keys: string[]): void {
    for (const key of keys) this.pty.write(KEYS[key] ?? key);
  }

  /** Until `pattern` is on the screen (all output so far rendered), or fails with the screen. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.pending === 0 ? this.screen({ joined: true }) : '';
      if (screen && pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`${pattern} not on the screen after ${timeoutMs} ms${this.exited ? ' (the command has exited)' : ''}:\n${this.screen({ joined: true })}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Hangs up, as closing a terminal window (or tmux's kill-server) does: SIGHUP to the command's process group, which the shell leads. */
  close(): void {
    try {
      process.kill(-this.pty.pid, 'SIGHUP');
    } catch {
      // already gone
    }
    try {
      this.pty.kill();
    } catch {
      // already gone
    }
    this.emulator.dispose();
  }
}
