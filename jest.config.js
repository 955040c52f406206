/** Workflow tests share one real dev server per `npm test` run (see test/support/global-setup.ts). */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The crash tests take minutes: `npm run test:chaos` (jest.chaos.config.js), called by .ci/run.
  // test/cluster/ needs the local cluster: `npm run test:cluster` (jest.cluster.config.js).
  // test/local-model/ fetches the real model on first use: `npm run test:local-model` (jest.local-model.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/chaos/', '<rootDir>/test/cluster/', '<rootDir>/test/local-model/'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 120000,
  maxWorkers: 2,
};
