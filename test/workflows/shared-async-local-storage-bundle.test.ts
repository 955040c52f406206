/**
 * The bundle every worker of this package runs (bundleOptions(), as jest's global setup builds it)
 * points every storage the SDK's workflow modules make at the class the runs of a thread share
 * (src/workflows/shared-async-local-storage.ts); the class itself is exercised in
 * test/unit/shared-async-local-storage.test.ts, and every workflow test runs on this bundle.
 */
import { readFileSync } from 'node:fs';
import { SHARED_STORAGE_GLOBAL } from '../../src/workflows/shared-async-local-storage';
import { readTestEnv } from '../support/test-env';

test("no module of the bundle makes its own storage from the sandbox's class", () => {
  const code = readFileSync(readTestEnv().bundlePath, 'utf8');
  const lines = code.split('\n').filter((line) => !/^\s*(\/\/|\*)/.test(line));
  // The cancellation scopes, the update scope and the tracing context: all three through the shared class.
  expect(lines.filter((line) => line.includes(`scope.${SHARED_STORAGE_GLOBAL} || scope.AsyncLocalStorage`)).length).toBeGreaterThanOrEqual(3);
  expect(lines.filter((line) => line.includes('globalThis.AsyncLocalStorage'))).toEqual([]);
});
