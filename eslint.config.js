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

/**
 * The folders of src/ from the top down (ARCHITECTURE.md, "Layers"): each imports only the folders
 * of the rows below its own, types included, so no two folders import each other. Folders of one
 * row may import each other (the file-level cycle rules keep that one way).
 */
const LAYERS = [
  ['public'],
  ['acp', 'mcp-server'],
  ['cli'],
  ['ui', 'eval', 'doctor'],
  ['ag-ui'],
  ['runs', 'terminal'],
  ['cluster', 'testing'],
  ['worker'],
  ['workflows'],
  ['activities'],
  ['sandbox', 'secrets', 'egress', 'checkpoints'],
  ['server'],
  ['connection', 'codec'],
  ['loop'],
  ['common'],
];
const DETERMINISTIC = ['workflows', 'loop', 'common'];
const NODE_SIDE = LAYERS.flat().filter((folder) => !DETERMINISTIC.includes(folder));
/** A relative import that climbs to src/ and goes down into one of these top-level folders (not a subfolder of the same name). */
const topFolder = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
/** One pattern per folder in the rows above `folder`'s, each naming it. */
const upwardWalls = (folder) =>
  LAYERS.slice(0, LAYERS.findIndex((row) => row.includes(folder))).flat().map((above) => ({
    regex: topFolder([above]),
    message: `src/${folder} is below src/${above} (ARCHITECTURE.md, Layers): move what both need into a folder below both`,
  }));

/** What deterministic code may not import: Node built-ins, Node-side code (types excepted), SDK internals, tests. */
const SANDBOX_PATTERNS = [
  {
    regex: `^(node:.*|(${NODE_BUILTINS.join('|')})(/.*)?)$`,
    message: `${SANDBOX}: no Node built-ins; do the I/O in an activity.`,
  },
  {
    // Workflows name activities by their types only: the code runs on a worker, never in the sandbox.
    regex: topFolder(NODE_SIDE),
    allowTypeImports: true,
    message: `${SANDBOX}: only types may come from Node-side code (${NODE_SIDE.join(', ')}).`,
  },
  SDK_INTERNALS,
  TEST_CODE,
];
/**
 * The CLI and what it imports reach the activities only through the worker it starts in-process
 * (src/worker): configuration they share lives in src/connection or src/common, the sandbox in src/sandbox.
 */
const ACTIVITIES_FROM_CLI = {
  regex: topFolder(['activities']),
  message: 'the CLI and the folders it imports must not import src/activities (types included): shared configuration lives in src/connection or src/common, the sandbox in src/sandbox',
};
const CLI_SIDE = ['acp', 'mcp-server', 'cli', 'ui', 'eval', 'doctor', 'ag-ui', 'runs', 'terminal'];

module.exports = defineConfig(
  // Only TypeScript is linted; the two CommonJS config files are not in tsconfig's project.
  { ignores: ['lib/', 'node_modules/', 'coverage/', 'artifacts/', '**/*.js', '**/*.cjs', 'bench/peers/'] },
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
  ...LAYERS.flat().map((folder) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...(DETERMINISTIC.includes(folder) ? SANDBOX_PATTERNS : [SDK_INTERNALS, TEST_CODE]),
            ...upwardWalls(folder),
            ...(CLI_SIDE.includes(folder) ? [ACTIVITIES_FROM_CLI] : []),
          ],
        },
      ],
    },
  })),
  {
    files: ['src/workflows/**/*.ts', 'src/loop/**/*.ts', 'src/common/**/*.ts'],
    rules: {
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
