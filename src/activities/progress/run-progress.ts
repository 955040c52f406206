import { Context } from '@temporalio/activity';
import type { ActivityProgress } from '../../common/stall';

const STATE_NAMES: Record<number, ActivityProgress['state']> = { 1: 'scheduled', 2: 'started', 3: 'cancel_requested', 4: 'paused', 5: 'pause_requested' };

/**
 * The run's own pending activities as the server sees them: when each last started and last
 * heartbeated. Workflow code cannot see heartbeats; the stall watchdog asks this once a quiet
 * period has passed, to tell a long command that still beats from a call nobody runs.
 */
export async function runProgress(): Promise<ActivityProgress[]> {
  const context = Context.current();
  const self = context.info.workflowExecution;
  if (!self) throw new Error('runProgress reads the pending activities of the run that asks: it has none');
  const description = await context.client.workflow.getHandle(self.workflowId, self.runId).describe();
  const toMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined): number | undefined =>
    time?.seconds == null ? undefined : Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
  return (description.raw.pendingActivities ?? [])
    .filter((pending) => pending.activityId !== context.info.activityId)
    .map((pending) => {
      const lastStartedMs = toMs(pending.lastStartedTime);
      const lastHeartbeatMs = toMs(pending.lastHeartbeatTime);
      return {
        activityType: pending.activityType?.name ?? 'unknown',
        state: STATE_NAMES[pending.state ?? 0] ?? 'scheduled',
        attempt: pending.attempt ?? 1,
        ...(lastStartedMs !== undefined ? { lastStartedMs } : {}),
        ...(lastHeartbeatMs !== undefined ? { lastHeartbeatMs } : {}),
      };
    });
}
