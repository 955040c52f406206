import { condition, log, sleep } from '@temporalio/workflow';
import type { RunPhase } from '../common/wire';
import { durationToMs } from '../common/duration';
import { isWaitingPhase, lastSignOfLife, stallStop } from '../loop/stall';
import type { Stop } from '../loop/transitions';
import { progressReading } from './activity-proxies';

/** What a subagent gets when its parent sets no `stallTimeout`. */
export const DEFAULT_SUBAGENT_STALL_TIMEOUT = '20m';

/**
 * Stops a run that makes no progress: no step recorded and no sign of life from its activities
 * for `stallTimeout`. One timer per quiet period, not one per step: when it fires the watchdog
 * looks at the newest step, and only a period with none asks the server (one activity) whether a
 * pending activity still starts or heartbeats. Waiting for a human, for jobs or for a subagent
 * (which has a watchdog of its own) is not a stall.
 */
export class StallWatchdog {
  private lastProgressMs = Date.now();
  private children = 0;
  private readonly timeoutMs: number;

  constructor(
    stallTimeout: string | number,
    private readonly phase: () => RunPhase,
  ) {
    this.timeoutMs = durationToMs(stallTimeout);
  }

  /** A step was recorded. */
  progressed(): void {
    this.lastProgressMs = Date.now();
  }

  /** While `work` (a subagent) runs, this run waits on a child that watches itself. */
  async whileChildRuns<T>(work: () => Promise<T>): Promise<T> {
    this.children += 1;
    try {
      return await work();
    } finally {
      this.children -= 1;
      this.progressed();
    }
  }

  private waiting(): boolean {
    return this.children > 0 || isWaitingPhase(this.phase());
  }

  /** Resolves with the stop once the run has stalled; until then it only sleeps. */
  async stalled(): Promise<Stop> {
    for (;;) {
      const quietFor = Date.now() - this.lastProgressMs;
      if (quietFor < this.timeoutMs) {
        await sleep(this.timeoutMs - quietFor);
        continue;
      }
      if (this.waiting()) {
        await condition(() => !this.waiting());
        this.progressed();
        continue;
      }
      const pending = await progressReading.runProgress().catch((err: Error) => {
        log.warn(`stall watchdog: the run's pending activities could not be read (${err.message}); looking again in one period`);
        return undefined;
      });
      if (pending === undefined) {
        this.progressed();
        continue;
      }
      const sign = lastSignOfLife(pending);
      if (sign !== undefined && Date.now() - sign < this.timeoutMs) {
        this.lastProgressMs = Math.max(this.lastProgressMs, sign);
        continue;
      }
      if (Date.now() - this.lastProgressMs < this.timeoutMs || this.waiting()) continue; // a step came while it asked
      return stallStop(this.timeoutMs, this.phase(), pending);
    }
  }
}
