import { spawn } from 'node:child_process';

/**
 * The system `git`, run against a workspace the agent could write: nothing of the workspace may
 * configure it. No system or global config, an empty HOME, no hooks, no fsmonitor (a program
 * git would start), no replace objects, no prompts; the repository's own config is ours (the
 * shadow store). Filters, textconv and eol conversion named by a workspace `.gitattributes`
 * are switched off by the store's `info/attributes` (store.ts), which outranks the workspace's.
 */
const HARDENING = [
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.fsmonitor=false',
  '-c', 'core.untrackedCache=false',
  '-c', 'core.autocrlf=false',
  '-c', 'core.safecrlf=false',
  '-c', 'core.symlinks=true',
  '-c', 'core.quotePath=false',
  '-c', 'core.attributesFile=/dev/null',
  '-c', 'core.excludesFile=/dev/null',
  '-c', 'gc.auto=0',
  '-c', 'core.logAllRefUpdates=false',
  '-c', 'maintenance.auto=false',
  '-c', 'diff.external=',
  '-c', 'submodule.recurse=false',
  '-c', 'user.name=BareAgent',
  '-c', 'user.email=checkpoints@bareagent.invalid',
  '--literal-pathspecs',
  '--no-replace-objects',
];

export const GIT_TIMEOUT_MS = 5 * 60_000;

export interface GitOptions {
  store: string;
  workTree?: string | undefined;
  /** The index file; the store's own when unset. */
  index?: string | undefined;
  input?: string | Buffer | undefined;
  /** An open file to give git as its stdin instead of `input` (git sees a regular file and its size). */
  stdinFd?: number | undefined;
  /** More `-c` settings for this command only. */
  config?: string[] | undefined;
  /** Exit codes that are answers, not failures (`diff --quiet` exits 1 for "differs"). */
  okCodes?: number[];
  timeoutMs?: number;
}

export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

function gitEnv(options: GitOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    XDG_CONFIG_HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    GIT_DIR: options.store,
  };
  if (options.workTree) env.GIT_WORK_TREE = options.workTree;
  if (options.index) env.GIT_INDEX_FILE = options.index;
  return env;
}

/** Runs git on the store; resolves with stdout, rejects with a GitError naming the command and its stderr. */
export function git(args: string[], options: GitOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Only our variables: a GIT_* of the worker's environment (GIT_DIR, GIT_CONFIG_PARAMETERS) must not reach it.
    const extra = (options.config ?? []).flatMap((setting) => ['-c', setting]);
    const child = spawn('git', [...HARDENING, ...extra, ...args], { env: gitEnv(options), cwd: options.workTree ?? '/', stdio: [options.stdinFd ?? 'pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? GIT_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new GitError(`git could not start: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 || (code !== null && options.okCodes?.includes(code))) {
        resolve(Buffer.concat(out));
        return;
      }
      const why = signal ? `killed by ${signal}` : `exit code ${code}`;
      reject(new GitError(`git ${args[0]} failed (${why}): ${Buffer.concat(err).toString('utf8').trim().slice(0, 2000)}`));
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

/** git's `-z` lists: NUL-separated, the last one terminated too. */
export function nulList(output: Buffer): string[] {
  return output.toString('utf8').split('\0').filter((item) => item.length > 0);
}
