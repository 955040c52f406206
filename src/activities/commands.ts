import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { BackgroundJobInput, CommandResult } from '../common/jobs';
import { SandboxError } from './sandbox/sandbox-error';
import { DEFAULT_SANDBOX_REQUEST, runShell } from './shell';
import { workspaceRoot } from './tools/workspace';

/** What a job keeps of its output: the parent's notification shows the first 500 characters. */
const JOB_OUTPUT_CHARS = 16_000;

/**
 * A background job's command (or the acceptance check). Heartbeats every second, so a lost
 * worker is noticed within the heartbeat timeout and the job is tried again elsewhere; a
 * cancellation kills the process group. A command the sandbox refuses fails without retries:
 * another attempt on the same worker would be refused the same way.
 */
export async function runCommand(
  input: Pick<BackgroundJobInput, 'command' | 'timeoutSeconds' | 'workspace' | 'sandbox'>,
): Promise<CommandResult> {
  const context = Context.current();
  let result;
  try {
    result = await runShell(input.command, {
      workspace: workspaceRoot(input.workspace),
      sandbox: input.sandbox ?? DEFAULT_SANDBOX_REQUEST,
      timeoutMs: input.timeoutSeconds * 1000,
      maxChars: JOB_OUTPUT_CHARS,
      signal: context.cancellationSignal,
      onTick: () => context.heartbeat(),
    });
  } catch (err) {
    if (err instanceof SandboxError) throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
    throw err;
  }
  if (result.cancelled) throw new CancelledFailure('background job cancelled; its processes were killed');
  return { exitCode: result.exitCode, output: result.output, timedOut: result.timedOut, sandbox: result.sandbox };
}
