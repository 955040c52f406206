/**
 * How many runs a worker keeps in its workflow cache (the SDK's `maxCachedWorkflows`). A run that
 * waits for a human costs ~1.6 MiB of live heap and ~4 MiB of RSS while cached; once more runs
 * are open than this, the least recently active ones (the parked ones) are evicted and replay
 * their history when their answer comes (measured in BENCHMARKS.md, "4. Memory"). Far above the
 * number of runs that iterate at the same time, so active runs stay cached; the SDK's own default
 * (sized from the heap limit, 2,310 on a 4 GiB heap) let 1,000 parked runs take ~4 GiB.
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 150;

export function maxCachedWorkflowsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BAREAGENT_MAX_CACHED_WORKFLOWS?.trim();
  if (!raw) return DEFAULT_MAX_CACHED_WORKFLOWS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    throw new Error(`BAREAGENT_MAX_CACHED_WORKFLOWS must be a whole number of runs (0 turns the cache off), got "${raw}"`);
  }
  return n;
}
