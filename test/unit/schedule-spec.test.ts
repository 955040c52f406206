import { UsageError } from '../../src/runs/usage-error';
import { parseInterval, scheduleSpec } from '../../src/cli/schedule-spec';

test('--every takes unit-suffixed durations, summed', () => {
  expect(parseInterval('24h')).toBe(86_400_000);
  expect(parseInterval('1h30m')).toBe(5_400_000);
  expect(parseInterval('45s')).toBe(45_000);
  for (const bad of ['24', 'h', '1.5h', '0s', '1w', '']) expect(() => parseInterval(bad)).toThrow(UsageError);
});

test('exactly one of --cron and --every; cron needs five fields or an @-shortcut', () => {
  expect(scheduleSpec({ cron: '0 3 * * *' })).toEqual({ spec: { cronExpressions: ['0 3 * * *'] }, text: 'cron 0 3 * * *' });
  expect(scheduleSpec({ cron: '@daily' }).spec).toEqual({ cronExpressions: ['@daily'] });
  expect(scheduleSpec({ every: '24h' })).toEqual({ spec: { intervals: [{ every: 86_400_000 }] }, text: 'every 24h' });
  expect(() => scheduleSpec({})).toThrow(/exactly one/);
  expect(() => scheduleSpec({ cron: '0 3 * * *', every: '1h' })).toThrow(/exactly one/);
  expect(() => scheduleSpec({ cron: '0 3 * *' })).toThrow(/five fields/);
});
