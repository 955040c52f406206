import { CancelledFailure } from '@temporalio/common';
import type { BackgroundJobInput, CommandResult } from '../common/jobs';
import { runActivityCommand } from './activity-shell';

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
  const result = await runActivityCommand({ ...input, maxChars: JOB_OUTPUT_CHARS });
  if (result.cancelled) throw new CancelledFailure('background job cancelled; its processes were killed');
  return { exitCode: result.exitCode, output: result.output, timedOut: result.timedOut, sandbox: result.sandbox };
}
