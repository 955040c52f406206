/**
 * `npm run test:chaos`: the crash tests (SIGKILLed workers, a restarted server). Same global
 * setup as `npm test` (one dev server, one workflow bundle); one file at a time, since the
 * figures they report (kills, stalls, duration) mean little when other suites share the CPU.
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 10 * 60_000,
  maxWorkers: 1,
};
