import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { HookRun } from '../../common/hooks';
import type { SandboxRequest } from '../../common/sandbox';
import { SandboxError } from '../sandbox/sandbox-error';
import { DEFAULT_SANDBOX_REQUEST, runShell } from '../shell';
import { workspaceRoot } from '../tools/workspace';

/** What a hook may print that the run keeps. */
const HOOK_OUTPUT_CHARS = 8_000;

export interface HookRequest {
  workspace?: string;
  command: string;
  /** The event's JSON, written to the hook's stdin. */
  input: unknown;
  timeoutSeconds: number;
  sandbox?: SandboxRequest;
}

/** One hook command, in the run's sandbox like `bash`, with the event's JSON on its stdin. */
export async function runHook(request: HookRequest): Promise<HookRun> {
  const context = Context.current();
  try {
    const result = await runShell(request.command, {
      workspace: workspaceRoot(request.workspace),
      sandbox: request.sandbox ?? DEFAULT_SANDBOX_REQUEST,
      timeoutMs: request.timeoutSeconds * 1000,
      maxChars: HOOK_OUTPUT_CHARS,
      signal: context.cancellationSignal,
      onTick: () => context.heartbeat(),
      stdin: JSON.stringify(request.input),
    });
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, timedOut: result.timedOut };
  } catch (err) {
    if (err instanceof SandboxError) throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
    throw err;
  }
}
