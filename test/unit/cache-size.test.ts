import { maxCachedWorkflowsFromEnv } from '../../src/worker/cache-size';

describe('BAREAGENT_MAX_CACHED_WORKFLOWS', () => {
  it('leaves the SDK default when unset', () => {
    expect(maxCachedWorkflowsFromEnv({})).toBeUndefined();
    expect(maxCachedWorkflowsFromEnv({ BAREAGENT_MAX_CACHED_WORKFLOWS: ' ' })).toBeUndefined();
  });

  it('takes a whole number, 0 turning the cache off', () => {
    expect(maxCachedWorkflowsFromEnv({ BAREAGENT_MAX_CACHED_WORKFLOWS: '500' })).toBe(500);
    expect(maxCachedWorkflowsFromEnv({ BAREAGENT_MAX_CACHED_WORKFLOWS: '0' })).toBe(0);
  });

  it.each(['-1', '1.5', 'lots'])('rejects %s, naming the variable', (value) => {
    expect(() => maxCachedWorkflowsFromEnv({ BAREAGENT_MAX_CACHED_WORKFLOWS: value })).toThrow(/BAREAGENT_MAX_CACHED_WORKFLOWS must be a whole number.*got "/);
  });
});
