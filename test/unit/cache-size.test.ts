import { DEFAULT_MAX_CACHED_WORKFLOWS, maxCachedWorkflowsFromEnv } from '../../src/worker/cache-size';

describe('BAREAGENT_MAX_CACHED_WORKFLOWS', () => {
  it('defaults to a cache far below the SDK heap-sized one, so parked runs get evicted', () => {
    expect(maxCachedWorkflowsFromEnv({})).toBe(DEFAULT_MAX_CACHED_WORKFLOWS);
    expect(maxCachedWorkflowsFromEnv({ BAREAGENT_MAX_CACHED_WORKFLOWS: ' ' })).toBe(DEFAULT_MAX_CACHED_WORKFLOWS);
    expect(DEFAULT_MAX_CACHED_WORKFLOWS).toBeLessThan(1000);
  });

  it('takes a whole number, 0 turning the cache off', () => {
    expect(maxCachedWorkflowsFromEnv({ BAREAGENT_MAX_CACHED_WORKFLOWS: '500' })).toBe(500);
    expect(maxCachedWorkflowsFromEnv({ BAREAGENT_MAX_CACHED_WORKFLOWS: '0' })).toBe(0);
  });

  it.each(['-1', '1.5', 'lots'])('rejects %s, naming the variable', (value) => {
    expect(() => maxCachedWorkflowsFromEnv({ BAREAGENT_MAX_CACHED_WORKFLOWS: value })).toThrow(/BAREAGENT_MAX_CACHED_WORKFLOWS must be a whole number.*got "/);
  });
});
