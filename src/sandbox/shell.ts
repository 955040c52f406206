import { spawn } from 'node:child_process';
import type { PinnedCopy } from './bwrap-args';
import type { SandboxKind, SandboxRequest } from '../common/sandbox';
import { createdHostExecuted, prepareCommand, type PreparedCommand } from './prepare-command';

export { commandEnv } from './command-env';

export interface ShellOptions {
  /** The real path of the run's workspace: the only host directory the command may write (see `sandbox.writableWorkspace`). */
  workspace: string;
  /** Where the command starts; the workspace when unset. */
  cwd?: string;
  sandbox: SandboxRequest;
  timeoutMs: number;
  maxChars: number;
  /**
   * Of `maxChars`, keep this many of the output's last characters when it is longer: the end of a
   * test run or a build (the failures, the summary) is where its news is. Only the head when unset.
   */
  tailChars?: number;
  signal?: AbortSignal;
  /**
   * Files bound read-only over workspace paths in the sandbox: a hook's pinned script runs as the
   * bytes that were checked, not as whatever the agent writes there after the check.
   */
  pinnedCopies?: PinnedCopy[];
  /** Called while the command runs, so an activity can heartbeat. */
  onTick?: () => void;
  /** Written to the command's stdin (a hook's JSON); stdin is empty otherwise. */
  stdin?: string;
  /** The tool call's idempotency key, given to the command as BAREAGENT_CALL_ID. */
  callId?: string;
}

export interface ShellResult {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  truncatedChars: number;
  /** With `tailChars`: where in `output` the kept tail starts (the cut lies just before it). */
  tailStart?: number;
  sandbox: SandboxKind;
  /** The two streams apart, each capped like `output` (a hook's decision is read from stdout alone). */
  stdout: string;
  stderr: string;
}

/** The default for callers that were not told: no network, nothing extra visible, workspace writable. */
export const DEFAULT_SANDBOX_REQUEST: SandboxRequest = { network: 'none', readOnlyPaths: [], writableWorkspace: true };

/**
 * Runs `bash -c` inside the sandbox (src/sandbox/), in its own process group, so that
 * a timeout or a cancellation kills the command and every child it started: bwrap runs with
 * --die-with-parent and its own PID namespace, so when the group goes the namespace goes with
 * it. Output (stdout and stderr interleaved) is capped while it streams: a command that prints
 * without end cannot fill the worker's memory. Throws SandboxError when the command must not run.
 */
export async function runShell(command: string, options: ShellOptions): Promise<ShellResult> {
  const prepared = await prepareCommand(command, {
    workspace: options.workspace,
    cwd: options.cwd ?? options.workspace,
    sandbox: options.sandbox,
    ...(options.callId !== undefined ? { callId: options.callId } : {}),
    ...(options.pinnedCopies?.length ? { pinnedCopies: options.pinnedCopies } : {}),
  });
  try {
    const result = await runProcess(prepared, options);
    const created = options.sandbox.writableWorkspace ? await createdHostExecuted(options.workspace, prepared.protectedPaths, options.sandbox.writableGit === true) : [];
    if (created.length > 0) result.output += `\n[The command created ${created.join(', ')}: files that host tools (git, direnv, editors) run by themselves. They were not read-only while it ran; later commands cannot write them. Check them before running git or opening the folder on the host.]`;
    return { ...result, sandbox: prepared.kind };
  } finally {
    await prepared.cleanup();
  }
}

type ProcessResult = Omit<ShellResult, 'sandbox'>;

function runProcess(prepared: PreparedCommand, options: ShellOptions): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(prepared.file, prepared.args, {
      cwd: prepared.cwd,
      env: prepared.env,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.stdin !== undefined && child.stdin) {
      // A command that does not read its stdin closes the pipe: not an error.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.stdin);
    }
    let output = '';
    let tail = '';
    const tailChars = Math.min(options.tailChars ?? 0, options.maxChars);
    const headChars = options.maxChars - tailChars;
    const apart = { stdout: '', stderr: '' };
    let truncatedChars = 0;
    let timedOut = false;
    let cancelled = false;
    const collect = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      const room = headChars - output.length;
      if (room >= text.length) output += text;
      else {
        output += text.slice(0, Math.max(0, room));
        const rest = text.slice(Math.max(0, room));
        if (tailChars === 0) truncatedChars += rest.length;
        else {
          // A rolling window of the last characters, trimmed in batches so each chunk costs its own length.
          tail += rest;
          if (tail.length > 2 * tailChars) {
            truncatedChars += tail.length - tailChars;
            tail = tail.slice(-tailChars);
          }
        }
      }
    };
    const collectApart = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (apart[stream].length < options.maxChars) apart[stream] += chunk.toString('utf8').slice(0, options.maxChars - apart[stream].length);
      collect(chunk);
    };
    child.stdout?.on('data', collectApart('stdout'));
    child.stderr?.on('data', collectApart('stderr'));
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
      options.signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      options.signal?.removeEventListener('abort', onAbort);
      // Children that outlived bash (e.g. `sleep 100 &`) go with the group.
      killGroup();
      if (tail.length > tailChars) {
        truncatedChars += tail.length - tailChars;
        tail = tail.slice(-tailChars);
      }
      const kept = tailChars > 0 && (tail || truncatedChars) ? { output: output + tail, tailStart: output.length } : { output };
      resolve({ exitCode: code, timedOut, cancelled, truncatedChars, ...kept, ...apart });
    });
  });
}
