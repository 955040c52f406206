/**
 * The workflow suites that drive runs, again over Anthropic's Messages API (BAREAGENT_TEST_WIRE=anthropic:
 * every run of the harness's workers goes to the scripted server's `/v1/messages`). `npm test` runs
 * them over OpenAI's Chat Completions; a test about one wire's own fields is `openaiWireOnly`
 * (test/support/harness.ts) and runs in that pass. Left out: the replays (no run is driven) and the
 * Anthropic suite, whose runs name `provider: "anthropic"` and ran already in `npm test`.
 */
process.env.BAREAGENT_TEST_WIRE = 'anthropic';
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/workflows/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/workflows/replay', '<rootDir>/test/workflows/anthropic.test.ts'],
};
