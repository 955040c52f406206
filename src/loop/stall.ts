import type { ActivityProgress } from '../common/stall';
import type { RunPhase } from '../common/wire';
import type { Stop } from './transitions';

/**
 * Phases in which a run waits for someone else: a human (a question, a follow-up) or its own jobs,
 * each with a bound of its own (the approval timeout, the idle timeout, the job's timeout or its
 * own watchdog). That time is not a stall.
 */
const WAITING_PHASES: ReadonlySet<RunPhase> = new Set<RunPhase>(['awaiting_approval', 'idle', 'waiting_for_jobs', 'completed', 'failed']);

export function isWaitingPhase(phase: RunPhase): boolean {
  return WAITING_PHASES.has(phase);
}

/**
 * The newest sign of life among a run's pending activities: a heartbeat, or the start of an attempt
 * on a worker. An activity no worker has taken (a dead tool queue, a crash loop between attempts)
 * gives none.
 */
export function lastSignOfLife(pending: readonly ActivityProgress[]): number | undefined {
  let newest: number | undefined;
  for (const activity of pending) {
    for (const at of [activity.lastHeartbeatMs, activity.state === 'started' ? activity.lastStartedMs : undefined]) {
      if (at !== undefined && (newest === undefined || at > newest)) newest = at;
    }
  }
  return newest;
}

/** The stop of a run that made no step and whose activities gave no sign of life for `timeoutMs`. */
export function stallStop(timeoutMs: number, phase: RunPhase, pending: readonly ActivityProgress[]): Stop {
  const waitingOn = pending.length === 0 ? 'no activity pending' : pending.map((a) => `${a.activityType} ${a.state}, attempt ${a.attempt}`).join('; ');
  const span = timeoutMs % 60_000 === 0 ? `${timeoutMs / 60_000} min` : `${Math.round(timeoutMs / 1000)} s`;
  return {
    kind: 'stop',
    reason: 'stalled',
    message: `Stalled: no step and no heartbeat for ${span} (stallTimeout) while ${phase.replace(/_/g, ' ')}`,
    detail: `phase ${phase}; ${waitingOn}`,
  };
}
