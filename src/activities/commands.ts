import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { BackgroundJobInput, CommandResult } from '../common/jobs';
import { commandEnv, runShell } from './shell';
import { workspaceRoot } from './tools/workspace';

/** What a job keeps of its output: the parent's notification shows the first 500 characters. */
const JOB_OUTPUT_CHARS = 16_000;

/**
 * A background job's command. Heartbeats every second, so a lost worker is noticed within the
 * heartbeat timeout and the job is tried again elsewhere; a cancellation kills the process group.
 */
export async function runCommand(input: Pick<BackgroundJobInput, 'command' | 'timeoutSeconds' | 'workspace'>): Promise<CommandResult> {
  const context = Context.current();
  const result = await runShell(input.command, {
    cwd: workspaceRoot(input.workspace),
    timeoutMs: input.timeoutSeconds * 1000,
    env: commandEnv(),
    maxChars: JOB_OUTPUT_CHARS,
    signal: context.cancellationSignal,
    onTick: () => context.heartbeat(),
  });
  if (result.cancelled) throw new CancelledFailure('background job cancelled; its processes were killed');
  return { exitCode: result.exitCode, output: result.output, timedOut: result.timedOut };
}
