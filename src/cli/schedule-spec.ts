import type { ScheduleSpec } from '@temporalio/client';
import { UsageError } from '../runs/usage-error';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--every 24h`, `90m`, `1h30m`: milliseconds; anything else is a usage error. */
export function parseInterval(text: string): number {
  const trimmed = text.trim();
  if (!/^(\d+[smhd])+$/.test(trimmed)) throw new UsageError(`--every must be a duration such as 30m, 24h or 1h30m, got "${text}"`);
  let ms = 0;
  for (const [, n, unit] of trimmed.matchAll(/(\d+)([smhd])/g)) ms += Number(n) * (UNIT_MS[unit ?? ''] ?? 0);
  if (ms < 1000) throw new UsageError(`--every must be at least 1s, got "${text}"`);
  return ms;
}

/**
 * Cron is checked here for shape only (five fields, or an @-shortcut); the server compiles it and
 * its refusal of a field it cannot read is reported as a usage error too.
 */
export function scheduleSpec(flags: { cron?: string; every?: string }): { spec: ScheduleSpec; text: string } {
  if (!!flags.cron === !!flags.every) throw new UsageError('give exactly one of --cron "<m h dom mon dow>" or --every <duration>');
  if (flags.cron) {
    const cron = flags.cron.trim();
    if (!/^@\w+$/.test(cron) && cron.split(/\s+/).length !== 5) {
      throw new UsageError(`--cron needs five fields "minute hour day-of-month month day-of-week", e.g. "0 3 * * *"; got "${flags.cron}"`);
    }
    return { spec: { cronExpressions: [cron] }, text: `cron ${cron}` };
  }
  const every = flags.every ?? '';
  return { spec: { intervals: [{ every: parseInterval(every) }] }, text: `every ${every.trim()}` };
}
