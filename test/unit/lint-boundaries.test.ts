import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The layer boundaries are lint rules: these probes break each one and must fail `npm run lint`.
 * The probes are linted as if they lived where they claim to (type information is not needed).
 */
const ROOT = path.resolve(__dirname, '../..');

/** ESLint loads its config with a dynamic import, which jest's VM refuses: it runs in a child process. */
function lint(probes: Array<{ file: string; code?: string }>): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/no-floating-promises': 'off' } } });
    (async () => {
      const out = [];
      for (const probe of JSON.parse(process.argv[1])) {
        const [result] = probe.code === undefined ? await eslint.lintFiles([probe.file]) : await eslint.lintText(probe.code, { filePath: probe.file });
        out.push(result.messages.map((m) => m.ruleId + ': ' + m.message));
      }
      process.stdout.write(JSON.stringify(out));
    })();`;
  const absolute = probes.map((p) => ({ ...p, file: path.resolve(ROOT, p.file) }));
  const child = spawnSync(process.execPath, ['-e', script, JSON.stringify(absolute)], { cwd: ROOT, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as string[][];
}

const FORBIDDEN: Array<[string, string, RegExp]> = [
  ['src/workflows/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", /no Node built-ins/],
  ['src/common/probe.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n", /no Node built-ins/],
  ['src/common/probe.ts', "export const home = process.env.HOME;\n", /no process/],
  ['src/loop/probe.ts', "export const r = Math.random();\n", /randomness/],
  ['src/workflows/probe.ts', "import { providerConfigFromEnv } from '../connection/provider-config';\nexport const p = providerConfigFromEnv;\n", /only types may come from Node-side code/],
  ['src/cli/probe.ts', "import type { Activities } from '../activities';\nexport type A = Activities;\n", /the CLI and the folders it imports must not import src\/activities/],
  ['src/runs/probe.ts', "import type { Activities } from '../activities';\nexport type A = Activities;\n", /the CLI and the folders it imports must not import src\/activities/],
  ['src/ui/probe.ts', "import { watchRun } from '../cli/watch-run';\nexport const w = watchRun;\n", /src\/ui is below src\/cli/],
  ['src/runs/probe.ts', "import { runTitle } from '../ui/run-page';\nexport const t = runTitle;\n", /src\/runs is below src\/ui/],
  ['src/sandbox/probe.ts', "import type { Activities } from '../activities';\nexport type A = Activities;\n", /src\/sandbox is below src\/activities/],
  ['src/workflows/probe.ts', "import { runShell } from '../sandbox/shell';\nexport const r = runShell;\n", /only types may come from Node-side code/],
  ['src/common/probe.ts', "import { parseRule } from '../loop/permission-rules';\nexport const p = parseRule;\n", /src\/common is below src\/loop/],
  ['src/common/probe.ts', "import { connectionFromEnv } from '../connection/config';\nexport const c = connectionFromEnv;\n", /only types may come from Node-side code/],
  ['src/loop/probe.ts', "import { msToNumber } from '@temporalio/common/lib/time';\nexport const m = msToNumber;\n", /public entry point/],
  ['src/cli/probe.ts', "import { Harness } from '../../test/support/harness';\nexport const h = Harness;\n", /must not import test code/],
];
const ALLOWED: Array<[string, string]> = [
  ['src/workflows/probe.ts', "import type { Activities } from '../activities';\nexport type A = Activities;\n"],
  ['src/cli/probe.ts', "import { ScriptedModelServer } from '../testing/scripted-model-server';\nexport const s = ScriptedModelServer;\n"],
  ['src/ui/probe.ts', "import { queryRun } from '../runs/query-run';\nexport const q = queryRun;\n"],
  ['src/workflows/probe.ts', "import { SandboxInput } from '../common/sandbox';\nexport const s = SandboxInput;\n"],
];

test('every forbidden import fails lint, and what the boundaries allow passes', () => {
  const results = lint([...FORBIDDEN, ...ALLOWED].map(([file, code]) => ({ file, code })));
  FORBIDDEN.forEach(([file, , expected], i) => expect({ file, problems: results[i]?.join('\n') }).toEqual({ file, problems: expect.stringMatching(expected) }));
  ALLOWED.forEach(([file], i) => expect({ file, problems: results[FORBIDDEN.length + i] }).toEqual({ file, problems: [] }));
}, 60_000);

test('an import cycle fails lint', () => {
  const dir = mkdtempSync(path.join(ROOT, 'test/.cycle-probe-'));
  try {
    writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = (): unknown => b;\n");
    writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a';\nexport const b = (): unknown => a;\n");
    const [problems] = lint([{ file: path.join(dir, 'a.ts') }]);
    expect(problems?.join('\n')).toMatch(/import-x\/no-cycle/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
