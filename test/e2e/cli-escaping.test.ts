import { randomUUID } from 'node:crypto';
import { cliEnv, runCli, type CliResult } from '../support/cli';
import { Harness } from '../support/harness';

/**
 * Everything the CLI prints of a run goes through the one escaping function
 * (src/common/visible-text.ts): model text, tool input and output, step records, error messages,
 * summaries, and the JSON of `--json`. A hostile model or tool output carries the sequences a
 * terminal acts on: OSC 52 (sets the clipboard), CSI erase-line and cursor-up (rewrites what was
 * shown), the C1 CSI U+009B (the same, in one byte pair JSON leaves raw) and the bidi override
 * U+202E. Checked on the bytes of the real `bareagent` process.
 */
let h: Harness;
let env: Record<string, string>;
const suffix = randomUUID().slice(0, 8);
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
  env = { ...cliEnv(h), BAREAGENT_WORKFLOW_BUNDLE: h.env.bundlePath };
});
afterAll(() => h.close());

const CLI_TEST_MS = 300_000;
const OSC52 = '\x1b]52;c;aGVsbG8=\x07';
const ERASE = '\x1b[2K\x1b[1A';
const C1_CSI = '\u009b2K';
const BIDI = '\u202e';
const HOSTILE = `${OSC52}${ERASE}${C1_CSI}${BIDI}`;

/** Any byte a terminal would act on, or a bidi override: none may reach the screen raw. */
function rawSequences(result: CliResult): string[] {
  return [...(result.stdout + result.stderr).matchAll(/[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]/g)].map((m) => `U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

async function closedRun(name: string, steps: Parameters<Harness['model']['setScenario']>[1], prompt = name) {
  const model = `escape-${name}-${suffix}`;
  h.model.setScenario(model, steps);
  const run = await h.start({ prompt, model, workspace: h.workspace({ 'a.txt': 'a\n' }), permissionMode: 'bypass', stream: false }, `escape-${name}-${suffix}`);
  await run.result().catch(() => undefined);
  return run;
}

test('model text, tool input and output, and the final answer print escaped in follow, messages, history and list', async () => {
  const run = await closedRun(
    'answer',
    [
      {
        text: `Working ${HOSTILE}`,
        toolCalls: [
          { id: 'b1', name: 'bash', arguments: { command: "printf 'out\\033]52;c;aGVsbG8=\\007\\033[2K\\n'" } },
          { id: 'r1', name: 'read_file', arguments: { file_path: `missing${ERASE}.txt` } },
          { id: 'u1', name: `evil${ERASE}tool`, arguments: {} },
        ],
      },
      { text: `The answer ${HOSTILE} end.` },
    ],
    `summary ${HOSTILE}`,
  );
  const follow = await runCli(['follow', run.workflowId], env);
  expect(follow.code).toBe(0);
  expect(rawSequences(follow)).toEqual([]);
  expect(follow.stdout).toContain('The answer \\x1b]52;c;aGVsbG8=\\x07\\x1b[2K\\x1b[1A\\x9b2K\\u202e end.');

  const messages = await runCli(['messages', run.workflowId], env);
  expect(messages.code).toBe(0);
  expect(rawSequences(messages)).toEqual([]);
  expect(messages.stdout).toContain('Working \\x1b]52;c;aGVsbG8=');
  expect(messages.stdout).toContain('out\\x1b]52;c;aGVsbG8=\\x07\\x1b[2K');
  expect(messages.stdout).toContain('missing\\x1b[2K\\x1b[1A.txt');

  const shown = new Map<string, CliResult>();
  for (const args of [['history', run.workflowId], ['history', run.workflowId, '--json'], ['messages', run.workflowId, '--json']]) {
    const result = await runCli(args, env);
    shown.set(args.join(' '), result);
    expect({ args, code: result.code, raw: rawSequences(result) }).toEqual({ args, code: 0, raw: [] });
  }
  expect(shown.get(`history ${run.workflowId}`)?.stdout).toContain('read_file missing\\x');
  // The same JSON value: the escapes are JSON's own.
  const json = JSON.parse(shown.get(`messages ${run.workflowId} --json`)?.stdout ?? '') as Array<{ content: unknown }>;
  expect(json.at(-1)?.content).toEqual([{ type: 'text', text: `The answer ${HOSTILE} end.` }]);

  const list = await runCli(['list', '--query', `WorkflowId = '${run.workflowId}'`], env);
  expect(list.code).toBe(0);
  expect(rawSequences(list)).toEqual([]);
  expect(list.stdout).toContain(run.workflowId);
}, CLI_TEST_MS);

test("an error message (the provider's words) prints escaped", async () => {
  const run = await closedRun('error', [{ status: 400, errorMessage: `bad request ${HOSTILE}` }]);
  const follow = await runCli(['follow', run.workflowId], env);
  expect(follow.code).toBe(1);
  expect(rawSequences(follow)).toEqual([]);
  expect(follow.stderr).toContain('bad request \\x1b]52;c;aGVsbG8=\\x07');
  const json = await runCli(['follow', run.workflowId, '--json'], env);
  expect(rawSequences(json)).toEqual([]);
}, CLI_TEST_MS);

test('a usage error quoting what the user gave prints escaped', async () => {
  const run = await runCli(['run', '--workspace', `/nonexistent/ws${ERASE}${OSC52}`, 'hello'], env);
  expect(run.code).toBe(2);
  expect(rawSequences(run)).toEqual([]);
  expect(run.stderr).toContain('\\x1b[2K');
}, CLI_TEST_MS);
