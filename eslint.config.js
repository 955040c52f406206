// @ts-check
const { builtinModules } = require('node:module');
const { defineConfig } = require('eslint/config');
const tseslint = require('typescript-eslint');

/** Every Node built-in (bare and `node:`), subpaths such as fs/promises included. */
const NODE_BUILTINS = builtinModules.filter((name) => !name.startsWith('_') && !name.includes('/'));

/** Why src/workflows and src/loop are held to this: they run inside the workflow sandbox and replay. */
const SANDBOX = 'src/workflows and src/loop must stay deterministic (workflow sandbox, replay)';
const TIMERS_AND_PROCESS = ['setTimeout', 'setInterval', 'setImmediate', 'process'];
const timerMessage = (name) =>
  name === 'process'
    ? `${SANDBOX}: no process; pass configuration in through the workflow input.`
    : `${SANDBOX}: use sleep() or condition() from @temporalio/workflow instead of ${name}.`;

module.exports = defineConfig(
  // Only TypeScript is linted; the two CommonJS config files are not in tsconfig's project.
  { ignores: ['lib/', 'node_modules/', 'coverage/', 'artifacts/', '**/*.js'] },
  tseslint.configs.recommended,
  {
    // Type-aware through the project service: about 8 s on this repo, cheap enough for
    // no-floating-promises (a forgotten await in a workflow is a silent ordering bug).
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/loop/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(node:.*|(${NODE_BUILTINS.join('|')})(/.*)?)$`,
              message: `${SANDBOX}: no Node built-ins; do the I/O in an activity.`,
            },
          ],
        },
      ],
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
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
