import { CancellationScope, getExternalWorkflowHandle, log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { BackgroundJobInput, CommandResult, JobFinished } from '../common/jobs';
import { jobFinishedSignal } from '../common/contract';
import { attempt } from './failures';

/** One command job: `background_run` starts it as a child of the run and it reports back when done. */
export async function backgroundJob(input: BackgroundJobInput): Promise<JobFinished> {
  const { runCommand } = proxyActivities<Activities>({
    startToCloseTimeout: `${input.timeoutSeconds + 60} seconds`,
    // A dead worker is noticed in seconds, and the command runs again on another one.
    heartbeatTimeout: '10 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
    ...(input.toolTaskQueue ? { taskQueue: input.toolTaskQueue } : {}),
  });
  const ran = await attempt(() =>
    runCommand.executeWithOptions({ summary: `background ${input.command}`.slice(0, 200) }, [
      {
        command: input.command,
        timeoutSeconds: input.timeoutSeconds,
        ...(input.workspace ? { workspace: input.workspace } : {}),
        ...(input.sandbox ? { sandbox: input.sandbox } : {}),
      },
    ]),
  );
  const outcome: JobFinished = ran.ok
    ? { taskId: input.taskId, ...commandOutcome(ran.value, input.timeoutSeconds) }
    : { taskId: input.taskId, status: 'failed', summary: `${ran.type}: ${ran.message}` };
  await notifyParent(input.parentWorkflowId, outcome);
  return outcome;
}

function commandOutcome(result: CommandResult, timeoutSeconds: number): Pick<JobFinished, 'status' | 'summary'> {
  if (result.timedOut) return { status: 'failed', summary: `TimeoutError: command timed out after ${timeoutSeconds} seconds` };
  if (result.exitCode !== 0) {
    return { status: 'failed', summary: `CommandFailed: exit code ${result.exitCode ?? 'signal'}\n${result.output}`.trimEnd() };
  }
  return { status: 'done', summary: result.output.trimEnd() || '(no output)' };
}

/** By workflow id, not run id: after the parent continued as new, its current run gets it. */
export async function notifyParent(parentWorkflowId: string, outcome: JobFinished): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    try {
      await getExternalWorkflowHandle(parentWorkflowId).signal(jobFinishedSignal, outcome);
    } catch (err) {
      log.info(`parent ${parentWorkflowId} no longer takes notifications: ${(err as Error).message}`);
    }
  });
}
