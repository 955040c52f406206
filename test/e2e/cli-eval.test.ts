import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScriptStep } from '../../src/testing/scripted-model-server';
import type { TrialResult } from '../../src/eval/trial';
import { cliHarness, runCli } from '../support/cli';
import type { Harness } from '../support/harness';
import { withoutRunContext } from '../support/prompt-sent';

/**
 * `bareagent eval` as a user runs it (bin/bareagent.js, no terminal) against the test dev server,
 * a harness worker and the scripted model: each trial a real durable run on a fresh copy of its
 * task's workspace, checked by its command in the sandbox afterwards.
 */
let h: Harness;
let env: Record<string, string>;
beforeAll(async () => {
  ({ h, env } = await cliHarness());
});
afterAll(() => h.close());

const usage = { prompt_tokens: 100, completion_tokens: 10 };
/** Each conversation's next answer, from its prompt and how many answers it has had: trials may interleave. */
const SCRIPTS: Record<string, ScriptStep[]> = {
  'EVAL write done into out.txt': [
    { text: 'Writing.', toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { file_path: 'out.txt', content: 'done' } }], usage },
    { text: 'Wrote out.txt.', usage },
  ],
  'EVAL what is six times seven?': [{ text: 'It is 42.', usage }],
  'EVAL create nothing.txt': [{ text: 'Done (not really).', usage }],
  // The first final answer fails the acceptance check; the model is told and does the work.
  'EVAL make made.txt': [
    { text: 'Done already.', usage },
    { text: 'Making it.', toolCalls: [{ id: 'call_m', name: 'write_file', arguments: { file_path: 'made.txt', content: 'x' } }], usage },
    { text: 'Now it is there.', usage },
  ],
};

function scenario(body: { messages: Array<{ role: string; content: unknown }> }): ScriptStep {
  const prompt = withoutRunContext(String(body.messages.find((m) => m.role === 'user')?.content ?? ''));
  const script = SCRIPTS[prompt];
  if (!script) return { status: 500, errorMessage: `no script for "${prompt}"` };
  const answered = body.messages.filter((m) => m.role === 'assistant').length;
  return script[answered] ?? { status: 500, errorMessage: `script of "${prompt}" has no answer ${answered}` };
}

function writeSuite(tasks: Record<string, { task: Record<string, unknown>; files?: Record<string, string> }>): string {
  const suite = mkdtempSync(path.join(os.tmpdir(), 'bareagent-eval-suite-'));
  for (const [name, { task, files = { 'README.md': 'x\n' } }] of Object.entries(tasks)) {
    mkdirSync(path.join(suite, name, 'workspace'), { recursive: true });
    writeFileSync(path.join(suite, name, 'task.json'), JSON.stringify(task));
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(suite, name, 'workspace', file), text);
  }
  return suite;
}

test('runs every task k times as durable runs, checks each workspace, prints the table, writes JSON, and fails under --min-pass', async () => {
  h.model.setScenario('eval-model', scenario);
  const suite = writeSuite({
    'write-file': { task: { prompt: 'EVAL write done into out.txt', check: '[ "$(cat out.txt)" = done ]' } },
    question: { task: { prompt: 'EVAL what is six times seven?', answer: '\\b42\\b', permissionMode: 'plan' } },
    'no-work': { task: { prompt: 'EVAL create nothing.txt', check: 'test -f nothing.txt' } },
    accepted: { task: { prompt: 'EVAL make made.txt', check: 'test -f made.txt', acceptance: true } },
  });
  const json = path.join(suite, 'report.json');
  const out = await runCli(['eval', suite, '-m', 'eval-model', '--trials', '2', '--concurrency', '3', '--json-file', json, '--min-pass', '0.9'], env);
  expect(out.stderr).toContain('Pass rate 75% is under --min-pass 90%');
  expect(out.code).toBe(1);
  expect(out.stdout).toMatch(/^TASK\s+TRIAL\s+PASS\s+ITER\s+TOKENS\s+WALL\s+STOP\s+WORKFLOW/m);
  expect(out.stdout).toContain('passed 6/8 (75%)');

  const report = JSON.parse(readFileSync(json, 'utf8')) as { complete: boolean; summary: { passed: number; trials: number }; results: TrialResult[] };
  expect(report.complete).toBe(true);
  expect(report.summary).toMatchObject({ passed: 6, trials: 8 });
  const byTask = (name: string) => report.results.filter((r) => r.task === name).sort((a, b) => a.trial - b.trial);
  const expected = {
    'write-file': { pass: true, iterations: 2, stopReason: 'final_answer' },
    question: { pass: true, iterations: 1, stopReason: 'final_answer', answerMatched: true },
    'no-work': { pass: false, iterations: 1, stopReason: 'final_answer', check: { exitCode: 1 } },
    accepted: { pass: true, iterations: 3, stopReason: 'final_answer', check: { exitCode: 0 } },
  };
  for (const [name, want] of Object.entries(expected)) {
    const trials = byTask(name);
    expect(trials.map((t) => t.trial)).toEqual([1, 2]);
    for (const trial of trials) {
      expect(trial).toMatchObject(want);
      // Tokens as the model reported them, every call counted.
      expect(trial.inputTokens).toBe(100 * want.iterations);
      expect(trial.outputTokens).toBe(10 * want.iterations);
    }
    // Two trials, two workspaces: each its own copy of the template.
    expect(new Set(trials.map((t) => t.workspace)).size).toBe(2);
  }
  expect(readFileSync(path.join(byTask('write-file')[0]!.workspace, 'out.txt'), 'utf8')).toBe('done');

  // Each trial is an ordinary agentRun on the server, on its own workspace, with no human to ask.
  for (const trial of report.results) {
    const handle = h.client.workflow.getHandle(trial.workflowId);
    const description = await handle.describe();
    expect(description.type).toBe('agentRun');
    expect(description.status.name).toBe('COMPLETED');
  }
  const accepted = byTask('accepted')[0]!;
  const history = await h.client.workflow.getHandle(accepted.workflowId).fetchHistory();
  const input = JSON.parse(Buffer.from(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!).toString());
  expect(input).toMatchObject({ workspace: accepted.workspace, askHuman: false, permissionMode: 'auto', maxIterations: 15, acceptance: { command: 'test -f made.txt' } });

  // Over the threshold: exit 0.
  const one = await runCli(['eval', suite, '-m', 'eval-model', '--task', 'question', '--min-pass', '100%'], env);
  expect(one.code).toBe(0);
  expect(one.stdout).toContain('passed 1/1 (100%)');
});

test('a task file with a mistake is refused with its path and the field', async () => {
  const suite = writeSuite({ broken: { task: { prompt: 'EVAL broken', maxIterations: 'ten' } }, empty: { task: { prompt: '', check: 'true' } } });
  const out = await runCli(['eval', suite], env);
  expect(out.code).toBe(2);
  expect(out.stderr).toContain(path.join(suite, 'broken', 'task.json'));
  expect(out.stderr).toMatch(/maxIterations: .*number/i);
  const missing = writeSuite({ nocheck: { task: { prompt: 'EVAL nothing to check' } } });
  const none = await runCli(['eval', missing], env);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('needs a check command or an answer pattern');
  const fine = writeSuite({ ok: { task: { prompt: 'EVAL fine', check: 'true' } } });
  const bad = await runCli(['eval', fine, '--min-pass', 'most'], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--min-pass must be a fraction');
});

test('--baseline model-alone asks the model once per task, applies its code, checks it the same way, and prints both side by side', async () => {
  const stub = "/** Twice n. @example double(2) // 4 */\nfunction double(n) {\n  throw new Error('not implemented');\n}\n\nmodule.exports = { double };\n";
  const requests: string[] = [];
  h.model.setScenario('eval-baseline', (body) => {
    const prompt = String(body.messages.find((m: { role: string }) => m.role === 'user')?.content ?? '');
    requests.push(prompt);
    // The baseline's one request: the prompt, the named file fenced under its path, the ask.
    if (prompt.includes('Reply with the finished code')) return { text: 'Here it is:\n```js\nfunction double(n) {\n  return n * 2;\n}\n```\n', usage };
    // The loop's run answers at once without touching the file.
    return { text: 'Done.', usage };
  });
  const suite = writeSuite({
    double: {
      task: { prompt: 'EVAL complete double in solution.js', check: "node -e \"process.exit(require('./solution.js').double(21) === 42 ? 0 : 1)\"" },
      files: { 'solution.js': stub },
    },
  });
  const json = path.join(suite, 'report.json');
  // The baseline's request goes from the eval's own process, to the provider its environment names.
  const withProvider = { ...env, OPENAI_BASE_URL: h.model.url, OPENAI_API_KEY: 'sk-test' };
  const out = await runCli(['eval', suite, '-m', 'eval-baseline', '--baseline', 'model-alone', '--json-file', json, '--min-pass', '1'], withProvider);
  // --min-pass judges the loop, which failed here.
  expect(out.code).toBe(1);
  expect(out.stdout).toMatch(/^TASK\s+TRIAL\s+MODE\s+PASS/m);
  expect(out.stdout).toMatch(/^TASK\s+LOOP\s+MODEL ALONE/m);
  expect(out.stdout).toMatch(/^double\s+0\/1 final_answer\s+1\/1 answered/m);
  expect(out.stdout).toContain('loop 0/1 · model alone 1/1');
  const baselineAsk = requests.find((r) => r.includes('Reply with the finished code'));
  expect(baselineAsk).toContain(`solution.js:\n\`\`\`javascript\n${stub}\`\`\``);

  const report = JSON.parse(readFileSync(json, 'utf8')) as { modes: string[]; summaryByMode: Record<string, { passed: number; trials: number }>; results: TrialResult[] };
  expect(report.modes).toEqual(['model-alone', 'loop']);
  expect(report.summaryByMode).toMatchObject({ loop: { passed: 0, trials: 1 }, 'model-alone': { passed: 1, trials: 1 } });
  const alone = report.results.find((r) => r.mode === 'model-alone')!;
  expect(alone).toMatchObject({ pass: true, workflowId: '', iterations: 1, inputTokens: 100, outputTokens: 10, stopReason: 'answered', check: { exitCode: 0 } });
  // The function replaced, the rest of the file (its JSDoc, its export) kept.
  expect(readFileSync(path.join(alone.workspace, 'solution.js'), 'utf8')).toBe('/** Twice n. @example double(2) // 4 */\nfunction double(n) {\n  return n * 2;\n}\n\nmodule.exports = { double };\n');
  const loop = report.results.find((r) => r.mode === 'loop')!;
  expect(loop.workspace).not.toBe(alone.workspace);
  expect(readFileSync(path.join(loop.workspace, 'solution.js'), 'utf8')).toBe(stub);

  // Only the baseline; --no-loop alone is refused.
  const only = await runCli(['eval', suite, '-m', 'eval-baseline', '--baseline', 'model-alone', '--no-loop', '--min-pass', '1'], withProvider);
  expect(only.code).toBe(0);
  expect(only.stdout).toContain('loop 0/0 · model alone 1/1');
  const refused = await runCli(['eval', suite, '--no-loop'], env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('--no-loop needs --baseline model-alone');
});
