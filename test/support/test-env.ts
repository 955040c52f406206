import { readFileSync } from 'node:fs';
import type { TestClusterEnv } from './test-cluster';

/** What the global setup leaves for the test files: one Temporal server, one workflow bundle. */
export interface TestEnv {
  address: string;
  uiPort: number;
  bundlePath: string;
  cliPath: string;
  dbFile: string;
  serverPid: number;
  /** Set under `npm run test:cluster`: the server is the local cluster's, not a dev server. */
  cluster?: TestClusterEnv;
}

export function readTestEnv(): TestEnv {
  const file = process.env.BAREAGENT_TEST_ENV_FILE;
  if (!file) throw new Error('BAREAGENT_TEST_ENV_FILE is not set: run the tests through jest (npm test)');
  return JSON.parse(readFileSync(file, 'utf8')) as TestEnv;
}
