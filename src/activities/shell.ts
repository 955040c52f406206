import { spawn, spawnSync } from 'node:child_process';

export interface ShellOptions {
  cwd: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  maxChars: number;
  signal?: AbortSignal;
  /** Called while the command runs, so an activity can heartbeat. */
  onTick?: () => void;
}

export interface ShellResult {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  truncatedChars: number;
}

/**
 * Runs `bash -c` in its own process group, so that a timeout or a cancellation kills the
 * command and every child it started. Output (stdout and stderr interleaved) is capped while
 * it streams: a command that prints without end cannot fill the worker's memory.
 */
export function runShell(command: string, options: ShellOptions): Promise<ShellResult> {
  const [file, args] = canIsolate() ? ['unshare', [...ISOLATION, 'bash', '-c', command]] : ['bash', ['-c', command]];
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let truncatedChars = 0;
    let timedOut = false;
    let cancelled = false;
    const collect = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      const room = options.maxChars - output.length;
      if (room >= text.length) output += text;
      else {
        output += text.slice(0, Math.max(0, room));
        truncatedChars += text.length - Math.max(0, room);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const ticker = options.onTick ? setInterval(options.onTick, 1000) : undefined;
    const onAbort = () => {
      cancelled = true;
      killGroup();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    child.on('error', (err) => {
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      options.signal?.removeEventListener('abort', onAbort);
      // Children that outlived bash (e.g. `sleep 100 &`) go with the group.
      killGroup();
      resolve({ exitCode: code, output, timedOut, cancelled, truncatedChars });
    });
  });
}

/**
 * Commands run in their own user and PID namespaces with their own /proc: the worker, its
 * environment (`/proc/$PPID/environ` holds OPENAI_API_KEY) and its other processes are out of
 * sight, and when the command's shell ends every process it left behind ends with it. Needs no
 * privileges (util-linux `unshare`); where it is unavailable commands run as plain `bash`.
 * BAREAGENT_BASH_ISOLATION=off turns it off.
 */
const ISOLATION = ['--user', '--map-current-user', '--pid', '--fork', '--mount-proc'];
let isolationWorks: boolean | undefined;

export function canIsolate(): boolean {
  if (process.env.BAREAGENT_BASH_ISOLATION === 'off') return false;
  isolationWorks ??= spawnSync('unshare', [...ISOLATION, 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  return isolationWorks;
}

const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'USER', 'SHELL', 'TMPDIR', 'TZ'];

/** The worker's secrets stay with the worker: commands see only a small, plain environment. */
export function commandEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}
