import ms from 'ms';

/** `15m`, `30 seconds`, `1 day`, or a number of milliseconds, as milliseconds (the input schema checks the form). */
export function durationToMs(duration: string | number): number {
  if (typeof duration === 'number') return duration;
  const parsed = ms(duration.trim().replace(/\s+/g, ' ') as ms.StringValue);
  if (typeof parsed !== 'number' || !Number.isFinite(parsed)) throw new TypeError(`not a duration: "${duration}"`);
  return parsed;
}
