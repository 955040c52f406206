import { parseAgentRunInput } from '../../src/common/input';
import { isWaitingPhase, lastSignOfLife, stallStop } from '../../src/loop/stall';

test('the newest heartbeat, or the start of a running attempt, is the sign of life; an activity no worker took gives none', () => {
  expect(lastSignOfLife([])).toBeUndefined();
  expect(lastSignOfLife([{ activityType: 'bash', state: 'scheduled', attempt: 1 }])).toBeUndefined();
  // A scheduled retry keeps the start of its last attempt on record: that attempt is over, not a sign.
  expect(lastSignOfLife([{ activityType: 'callModel', state: 'scheduled', attempt: 3, lastStartedMs: 500 }])).toBeUndefined();
  expect(lastSignOfLife([{ activityType: 'callModel', state: 'started', attempt: 2, lastStartedMs: 1_000 }])).toBe(1_000);
  expect(
    lastSignOfLife([
      { activityType: 'bash', state: 'started', attempt: 1, lastStartedMs: 1_000, lastHeartbeatMs: 9_000 },
      { activityType: 'callModel', state: 'scheduled', attempt: 4, lastHeartbeatMs: 4_000 },
    ]),
  ).toBe(9_000);
});

test('waiting for a human or for jobs is not a stall; calling the model or running a tool is', () => {
  for (const phase of ['awaiting_approval', 'idle', 'waiting_for_jobs'] as const) expect(isWaitingPhase(phase)).toBe(true);
  for (const phase of ['starting', 'calling_model', 'running_tool', 'compacting', 'checking_acceptance'] as const) expect(isWaitingPhase(phase)).toBe(false);
});

test('the stop names the timeout, the phase and what was pending', () => {
  expect(stallStop(30_000, 'running_tool', [{ activityType: 'bash', state: 'scheduled', attempt: 1 }])).toEqual({
    kind: 'stop',
    reason: 'stalled',
    message: 'Stalled: no step and no heartbeat for 30 s (stallTimeout) while running tool',
    detail: 'phase running_tool; bash scheduled, attempt 1',
  });
  expect(stallStop(20 * 60_000, 'calling_model', []).message).toContain('for 20 min');
  expect(stallStop(90_000, 'calling_model', []).detail).toBe('phase calling_model; no activity pending');
});

test('stallTimeout: a value that is no duration gets the form\'s message, one under 30 s the floor\'s', () => {
  expect(parseAgentRunInput({ prompt: 'x', stallTimeout: 'abc' })).toEqual({ ok: false, message: 'Invalid agentRun input: stallTimeout: must be a duration such as "30s", "15m" or "2h"' });
  expect(parseAgentRunInput({ prompt: 'x', stallTimeout: '5s' })).toMatchObject({ ok: false, message: expect.stringContaining('stallTimeout: must be at least 30 seconds') });
  expect(parseAgentRunInput({ prompt: 'x', stallTimeout: '2 minutes' })).toMatchObject({ ok: true });
});
