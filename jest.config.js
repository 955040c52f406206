/** Workflow tests share one real dev server per `npm test` run (see test/support/global-setup.ts). */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest'],
    // The ACP SDK ships ES modules only: its files become CommonJS for jest like ours.
    '/node_modules/@agentclientprotocol/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@agentclientprotocol/)'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The crash tests take minutes: `npm run test:chaos` (jest.chaos.config.js), called by .ci/run.
  // test/cluster/ needs the local cluster: `npm run test:cluster` (jest.cluster.config.js).
  // test/local-model/ fetches the real model on first use: `npm run test:local-model` (jest.local-model.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/chaos/', '<rootDir>/test/cluster/', '<rootDir>/test/local-model/', '<rootDir>/bench/peers/'],
  // bench/peers is a package of its own with its own node_modules: not part of the root's module map.
  modulePathIgnorePatterns: ['<rootDir>/bench/peers/'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 120000,
  // One more than the cores: many suites spend most of their time waiting on real timers (a 30 s
  // stall timeout, a human's 2 s default, heartbeats), and a third worker uses the cores meanwhile.
  maxWorkers: 3,
};
