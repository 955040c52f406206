/**
 * How many runs a worker keeps in its workflow cache (the SDK's `maxCachedWorkflows`); unset, the
 * SDK's own default (sized from the heap limit: 2,310 on a 4 GiB heap). A run that waits for a
 * human costs ~1.6 MiB of live heap and ~4 MiB of RSS while cached; with a smaller cache the least
 * recently active runs (the parked ones) are evicted and replay their history when their answer
 * comes. Keep it well above the number of runs that iterate at the same time: beyond that every
 * workflow task replays (1,000 runs started at once on a cache of 150 did not park in 10 minutes).
 */
export function maxCachedWorkflowsFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.BAREAGENT_MAX_CACHED_WORKFLOWS?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    throw new Error(`BAREAGENT_MAX_CACHED_WORKFLOWS must be a whole number of runs (0 turns the cache off), got "${raw}"`);
  }
  return n;
}
