import { CancellationScope, getExternalWorkflowHandle, log, ParentClosePolicy, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import type { ChildPermission, JobFinished, JobInfo } from '../common/jobs';
import type { JobNotification } from '../loop/notifications';
import { childPermissionSignal, jobFinishedSignal } from '../common/contract';

/** The part of a run's state that the job board owns; plain JSON, carried across continue-as-new. */
export interface JobBoardState {
  running: JobInfo[];
  notifications: JobNotification[];
  counter: number;
}

/**
 * Background jobs of one run: child workflows that report by signal when they finish. Their
 * notifications queue here whatever the run is doing (waiting for the model, a tool or a human)
 * and are drained at the start of the next iteration.
 */
export class JobBoard {
  private readonly running = new Map<string, JobInfo>();
  private notifications: JobNotification[];
  private counter: number;
  private readonly childQuestions = new Map<string, ChildPermission>();

  constructor(
    carried: JobBoardState | undefined,
    private readonly onChange: (event: { finished?: JobFinished; question?: ChildPermission }) => void,
  ) {
    for (const job of carried?.running ?? []) this.running.set(job.taskId, job);
    this.notifications = [...(carried?.notifications ?? [])];
    this.counter = carried?.counter ?? 0;
    setHandler(jobFinishedSignal, (finished) => this.finish(finished));
    setHandler(childPermissionSignal, (question) => {
      if (question.open) this.childQuestions.set(question.requestId, question);
      else this.childQuestions.delete(question.requestId);
      this.onChange({ question });
    });
  }

  /** `job-1`, `sub-2`, ...: one counter, carried across continue-as-new, so child ids never clash. */
  nextTaskId(prefix: 'job' | 'sub' = 'job'): string {
    this.counter += 1;
    return `${prefix}-${this.counter}`;
  }

  isRunning(taskId: string): boolean {
    return this.running.has(taskId);
  }

  list(): JobInfo[] {
    return [...this.running.values()];
  }

  /** How many jobs of this kind run now (for the run's concurrency limits). */
  runningOf(kind: JobInfo['kind']): number {
    return [...this.running.values()].filter((job) => job.kind === kind).length;
  }

  hasRunning(): boolean {
    return this.running.size > 0;
  }

  /**
   * A run must not continue as new while it has jobs: the server would cancel them as it closes
   * the run (their parent close policy), and the next run would wait for reports that never come.
   */
  blocksContinueAsNew(): boolean {
    return this.running.size > 0;
  }

  hasNotifications(): boolean {
    return this.notifications.length > 0;
  }

  pendingChildQuestions(): ChildPermission[] {
    return [...this.childQuestions.values()];
  }

  drain(): JobNotification[] {
    const drained = this.notifications;
    this.notifications = [];
    return drained;
  }

  /** Starts a child workflow as a job; the job is on the board before it can possibly report. */
  async start(job: Omit<JobInfo, 'startedAt' | 'workflowId'>, workflowType: string, args: unknown[]): Promise<JobInfo> {
    const info: JobInfo = {
      ...job,
      workflowId: `${workflowInfo().workflowId}.${job.taskId}`,
      startedAt: new Date().toISOString(),
    };
    this.running.set(info.taskId, info);
    try {
      await startChild(workflowType, {
        workflowId: info.workflowId,
        args,
        staticSummary: `${job.kind === 'command' ? 'background' : 'background subagent'}: ${job.description}`.slice(0, 200),
        // A terminated run runs no workflow code, so only the server can end its jobs with it. It
        // applies this policy on continue-as-new as well (measured on server 1.29), hence
        // blocksContinueAsNew(). cancelAll() still ends them first when the run ends by itself.
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      });
    } catch (err) {
      this.running.delete(info.taskId);
      throw err;
    }
    return info;
  }

  /** At the end of the run: unfinished jobs are cancelled, and their processes killed with them. */
  async cancelAll(): Promise<void> {
    const jobs = this.list();
    this.running.clear();
    await CancellationScope.nonCancellable(() =>
      Promise.all(
        jobs.map((job) =>
          getExternalWorkflowHandle(job.workflowId)
            .cancel()
            .catch((err: Error) => log.info(`job ${job.taskId} was already closed: ${err.message}`)),
        ),
      ),
    );
  }

  state(): JobBoardState {
    return { running: this.list(), notifications: [...this.notifications], counter: this.counter };
  }

  private finish(finished: JobFinished): void {
    if (!this.running.delete(finished.taskId)) log.warn(`notification from a job this run does not track: ${finished.taskId}`);
    if (finished.status === 'cancelled') return;
    this.notifications.push({ taskId: finished.taskId, status: finished.status, summary: finished.summary });
    this.onChange({ finished });
  }
}
