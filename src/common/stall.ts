/** One pending activity of a run, as the server reports it: what the stall watchdog judges by. */
export interface ActivityProgress {
  activityType: string;
  state: 'scheduled' | 'started' | 'cancel_requested' | 'paused' | 'pause_requested';
  attempt: number;
  /** When its current attempt started on a worker (epoch ms); absent while no worker has taken it. */
  lastStartedMs?: number;
  /** Its last heartbeat (epoch ms), of any attempt. */
  lastHeartbeatMs?: number;
}
