/** Percentiles and the small formatting helpers every section uses. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  mean: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  return { n: values.length, p50: percentile(values, 50), p95: percentile(values, 95), mean, max: values.length ? Math.max(...values) : NaN };
}

export const ms = (value: number, digits = 1): string => (Number.isFinite(value) ? `${value.toFixed(digits)} ms` : '–');

export function bytes(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (value >= 1024 * 1024) return `${(value / 1024 / 1024).toFixed(2)} MiB`;
  if (value >= 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${Math.round(value)} B`;
}

export const ratio = (value: number, digits = 2): string => (Number.isFinite(value) ? `${value.toFixed(digits)}×` : '–');

export const sleep = (msec: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, msec));

/** Runs `tasks` with at most `limit` in flight (bounded concurrency for starting many runs). */
export async function inBatches<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await task(items[next++] as T);
    }),
  );
}
