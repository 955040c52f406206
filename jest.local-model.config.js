/**
 * `npm run test:local-model` (opt-in, not in `npm test` nor CI): real runs against a real
 * llama.cpp server and a small local model. The first run builds llama-cpp-python into
 * ~/.cache/bareagent (minutes), hence the long timeout; one file at a time.
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/local-model/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 40 * 60_000,
  maxWorkers: 1,
};
