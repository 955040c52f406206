import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * A command that only talks to the server (`status`, `approve`, `list`, `--help`...) does not load
 * the worker SDK, the activities or the model and MCP clients: they cost a second of CPU at every
 * start. Only the commands that run a worker load them, when they start one
 * (src/cli/load-on-use.ts).
 */
const ROOT = path.resolve(__dirname, '../..');
const HEAVY = ['node_modules/@temporalio/worker/', 'node_modules/openai/', 'node_modules/@modelcontextprotocol/', 'node_modules/hono/'];

/** The heavy packages loaded by `bareagent <args>` (commander exits before any connection). */
function heavyLoadedBy(args: string[]): string[] {
  const script = `require('tsx/cjs');
process.argv = [process.argv[0], 'bareagent', ...${JSON.stringify(args)}];
process.on('exit', () => {
  const loaded = Object.keys(require.cache);
  const heavy = ${JSON.stringify(HEAVY)}.filter((name) => loaded.some((file) => file.includes(name)));
  process.stderr.write('\\nHEAVY=' + JSON.stringify(heavy) + '\\n');
});
require('./src/client.ts');`;
  return reportOf(script) as string[];
}

/** Runs a script in a Node of its own (a fresh module cache) and returns what it reported. */
function reportOf(script: string): unknown {
  const ran = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const report = /^HEAVY=(.*)$/m.exec(ran.stderr)?.[1];
  if (report === undefined) throw new Error(`no report (exit ${ran.status}):\n${ran.stderr}`);
  return JSON.parse(report);
}

test.each(['--version', 'status --help', 'approve --help', 'list --help', 'run --help', 'demo --help', 'ui --help'])(
  '`bareagent %s` loads no worker SDK, model client, MCP client or web server',
  (args) => {
    expect(heavyLoadedBy(args.split(' '))).toEqual([]);
  },
);

test('the check itself sees a heavy package once a worker command loads it', () => {
  const script = `require('tsx/cjs'); require('./src/cli/load-on-use.ts').localWorkerModule();
process.stderr.write('HEAVY=' + JSON.stringify(Object.keys(require.cache).some((file) => file.includes('node_modules/@temporalio/worker/'))) + '\\n');`;
  expect(reportOf(script)).toBe(true);
});
