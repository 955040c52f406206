import { msToNumber } from '@temporalio/common/lib/time';

/** `15m`, `30 seconds`, or a number of milliseconds, as milliseconds. */
export function durationToMs(duration: string | number): number {
  return typeof duration === 'number' ? duration : msToNumber(duration.trim() as Parameters<typeof msToNumber>[0]);
}
