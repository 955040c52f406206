import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

/**
 * A real terminal for tests: a detached tmux pane of a fixed size running one shell command.
 * `screen()` is what a person would see (tmux interprets every cursor move and erase), with
 * the scrollback, so a redraw that overwrites text shows as the overwritten text.
 */
export class TmuxPane {
  private readonly socket = `bareagent-test-${randomUUID().slice(0, 8)}`;

  private constructor(readonly cols: number) {}

  static start(command: string, options: { cols: number; rows: number; env: Record<string, string> }): TmuxPane {
    const pane = new TmuxPane(options.cols);
    const env = Object.entries(options.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
    pane.tmux('new-session', '-d', '-x', String(options.cols), '-y', String(options.rows), ...env, command);
    pane.tmux('set-option', '-g', 'history-limit', '5000');
    return pane;
  }

  /** The pane's scrollback and screen; `joined` undoes tmux's wrapping of long lines, `escapes` keeps colours. */
  screen(options: { joined?: boolean; escapes?: boolean } = {}): string {
    const flags = ['-p', '-S', '-', ...(options.joined ? ['-J'] : []), ...(options.escapes ? ['-e'] : [])];
    return this.tmux('capture-pane', ...flags);
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', ...keys);
  }

  async waitFor(pattern: RegExp, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen({ joined: true });
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`${pattern} not on the screen after ${timeoutMs} ms:\n${screen}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}
