// @ts-check
const { builtinModules } = require('node:module');
const { defineConfig } = require('eslint/config');
const tseslint = require('typescript-eslint');
const importX = require('eslint-plugin-import-x');

/** Every Node built-in (bare and `node:`), subpaths such as fs/promises included. */
const NODE_BUILTINS = builtinModules.filter((name) => !name.startsWith('_') && !name.includes('/'));

/** Why src/workflows, src/loop and src/common are held to this: workflows run them in the sandbox, and replay. */
const SANDBOX = 'src/workflows, src/loop and src/common must stay deterministic (workflow sandbox, replay)';

/** SDK files outside a package's public entry points change without notice between releases. */
const SDK_INTERNALS = {
  regex: '^@temporalio/[^/]+/lib/',
  message: 'import from the package\'s public entry point, not its lib/ files',
};
/** The product never depends on the tests; what both need lives in src/testing. */
const TEST_CODE = { regex: '(^|/)test/', message: 'product code must not import test code (shared helpers live in src/testing)' };
const TIMERS_AND_PROCESS = ['setTimeout', 'setInterval', 'setImmediate', 'process'];
const timerMessage = (name) =>
  name === 'process'
    ? `${SANDBOX}: no process; pass configuration in through the workflow input.`
    : `${SANDBOX}: use sleep() or condition() from @temporalio/workflow instead of ${name}.`;

/** What deterministic code may not import: Node built-ins, Node-side code (types excepted), SDK internals, tests. */
const SANDBOX_PATTERNS = [
  {
    regex: `^(node:.*|(${NODE_BUILTINS.join('|')})(/.*)?)$`,
    message: `${SANDBOX}: no Node built-ins; do the I/O in an activity.`,
  },
  {
    // Workflows name activities by their types only: the code runs on a worker, never in the sandbox.
    regex: '(^|/)(activities|worker|cli|connection|server|codec|testing)(/|$)',
    allowTypeImports: true,
    message: `${SANDBOX}: only types may come from Node-side code (activities, worker, cli, connection, server, codec, testing).`,
  },
  SDK_INTERNALS,
  TEST_CODE,
];
/** Wire types sit below the loop: the loop reads them, never the reverse. */
const LOOP_FROM_COMMON = { regex: '(^|/)loop(/|$)', message: 'src/common is below src/loop: move what both need into src/common' };
/** The CLI reads configuration from src/connection; activities are the worker's. */
const ACTIVITIES_FROM_CLI = {
  regex: '(^|/)activities(/|$)',
  message: 'the CLI must not import src/activities (types included): shared configuration lives in src/connection or src/common',
};

module.exports = defineConfig(
  // Only TypeScript is linted; the two CommonJS config files are not in tsconfig's project.
  { ignores: ['lib/', 'node_modules/', 'coverage/', 'artifacts/', '**/*.js', '**/*.cjs'] },
  tseslint.configs.recommended,
  {
    // Type-aware through the project service: about 8 s on this repo, cheap enough for
    // no-floating-promises (a forgotten await in a workflow is a silent ordering bug).
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'import-x/no-cycle': 'error',
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [SDK_INTERNALS] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [SDK_INTERNALS, TEST_CODE] }] },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/loop/**/*.ts', 'src/common/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: SANDBOX_PATTERNS }],
      'no-restricted-globals': [
        'error',
        ...TIMERS_AND_PROCESS.map((name) => ({ name, message: timerMessage(name) })),
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'Math',
          property: 'random',
          message: `${SANDBOX}: take randomness from uuid4() in a workflow, or as an argument in src/loop.`,
        },
        ...TIMERS_AND_PROCESS.map((property) => ({ object: 'globalThis', property, message: timerMessage(property) })),
      ],
    },
  },
  {
    files: ['src/common/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...SANDBOX_PATTERNS, LOOP_FROM_COMMON] }] },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [SDK_INTERNALS, TEST_CODE, ACTIVITIES_FROM_CLI] }] },
  },
  {
    // The scripted model server reads request bodies of any shape, as the tests do.
    files: ['test/**/*.ts', 'src/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests read and write recorded histories as JSON, which the SDK offers only from proto-utils.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ ...SDK_INTERNALS, regex: '^@temporalio/[^/]+/lib/(?!proto-utils$)' }] }],
    },
  },
);
