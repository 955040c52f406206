import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

const ROOT = path.resolve(__dirname, '../..');

export interface ApproverUi {
  url: string;
  /** The link printed at the first start: `<url>/?token=...`. */
  loginUrl: string;
  token: string;
  home: string;
  stdout(): string;
  stop(): Promise<void>;
}

/** `bareagent ui` as an operator starts it, in its own process, with a fresh BAREAGENT_HOME. */
export async function startApproverUi(env: Record<string, string>): Promise<ApproverUi> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-ui-home-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), 'ui'], {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', BAREAGENT_HOME: home, BAREAGENT_UI_ADDR: `127.0.0.1:${port}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const loginUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bareagent ui printed no login link in 30 s:\n${out}\n${err}`)), 30_000);
    const check = () => {
      const match = /(http:\/\/\S+\/\?token=\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => reject(new Error(`bareagent ui exited (${code}):\n${out}\n${err}`)));
  });
  const url = new URL(loginUrl);
  return {
    url: url.origin,
    loginUrl,
    token: url.searchParams.get('token') as string,
    home,
    stdout: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
