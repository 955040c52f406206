/**
 * `npm run test:cluster`: the suites that matter for production against the local cluster
 * (`npm run cluster`: the compose file's Temporal server on PostgreSQL), started fresh in a temp
 * folder by the global setup. One file at a time: the crash tests restart the shared server.
 */
process.env.BAREAGENT_TEST_SERVER = 'cluster';
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: [
    '<rootDir>/test/cluster/**/*.test.ts',
    '<rootDir>/test/workflows/first-run.test.ts',
    '<rootDir>/test/workflows/permissions.test.ts',
    '<rootDir>/test/workflows/tool-results.test.ts',
    '<rootDir>/test/workflows/tool-task-queue.test.ts',
    '<rootDir>/test/workflows/background-jobs.test.ts',
    '<rootDir>/test/workflows/subagents.test.ts',
    '<rootDir>/test/workflows/continue-as-new.test.ts',
    '<rootDir>/test/workflows/children-across-continue-as-new.test.ts',
    '<rootDir>/test/e2e/encryption.test.ts',
    '<rootDir>/test/chaos/chaos.test.ts',
  ],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 10 * 60_000,
  maxWorkers: 1,
};
