/**
 * `npm run test:chaos`: the crash tests (SIGKILLed workers, a restarted server). Same global
 * setup as `npm test` (one dev server, one workflow bundle); one file at a time (the server-restart
 * tests restart the shared server). In CI they share the machine with the cluster and the real
 * model, so their figures there are under load; none of their checks depends on the machine's speed.
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
  // The 26-kill model-call test runs on its own (npm run test:chaos:kills, its own step in .ci/run):
  // it takes minutes of kills and restarts, and its figures mean most with nothing beside it.
  testPathIgnorePatterns: ['/node_modules/', process.env.BAREAGENT_CHAOS_KILLS ? 'NONE' : '<rootDir>/test/chaos/model-call-kills.test.ts'],
  ...(process.env.BAREAGENT_CHAOS_KILLS ? { testMatch: ['<rootDir>/test/chaos/model-call-kills.test.ts'] } : {}),
  testTimeout: 10 * 60_000,
  maxWorkers: 1,
};
