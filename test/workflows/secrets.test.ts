/**
 * Secrets and confinement: the provider key never enters a run's history, the
 * bash tool does not inherit the worker's secrets, and no file tool reaches outside the workspace.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { Message, ToolResultBlock } from '../../src/common/messages';
import { Harness, TEST_WIRE } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { messagesQuery } from '../../src/common/contract';

const KEY = 'sk-test-secret-never-in-history'; // what Harness and WorkerProcess give the worker as its API key

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

/**
 * Everything a run's history holds, as text: its proto JSON (what `temporal workflow show -o json`
 * prints) plus every base64 value in it decoded (payload data, where inputs and results live).
 */
async function historyText(handle: WorkflowHandle): Promise<string> {
  const json = historyToJSON(await handle.fetchHistory());
  const decoded: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.length >= 4 && /^[A-Za-z0-9+/]+={0,2}$/.test(value)) decoded.push(Buffer.from(value, 'base64').toString('utf8'));
    } else if (value && typeof value === 'object') {
      for (const item of Object.values(value)) walk(item);
    }
  };
  walk(JSON.parse(json));
  return `${json}\n${decoded.join('\n')}`;
}

function toolResults(messages: Message[]): ToolResultBlock[] {
  return messages.flatMap((m) =>
    m.role === 'user' && Array.isArray(m.content) ? (m.content as ToolResultBlock[]).filter((b) => b.type === 'tool_result') : [],
  );
}

test('the API key is used on every model request and appears nowhere in the history, also when the provider echoes it', async () => {
  const marker = `prompt-${randomUUID()}`;
  h.model.setScenario('secret-tools', [
    {
      text: 'Working.',
      toolCalls: [
        { id: 'r', name: 'read_file', arguments: { file_path: 'notes.txt' } },
        { id: 'w', name: 'write_file', arguments: { file_path: 'out.txt', content: 'done' } },
        { id: 'b', name: 'bash', arguments: { command: 'echo "[$OPENAI_API_KEY]"; env | sort' } },
      ],
    },
    { text: 'Finished.' },
  ]);
  const handle = await h.start({ prompt: marker, model: 'secret-tools', workspace: h.workspace({ 'notes.txt': 'hello\n' }), permissionMode: 'auto' });
  expect(await handle.result()).toMatchObject({ text: 'Finished.' });
  expect(h.model.requestsFor('secret-tools').map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  const text = await historyText(handle);
  expect(text).toContain(marker); // the decoding works: the prompt is only in base64 payload data
  expect(text).toContain('[]'); // bash saw no OPENAI_API_KEY
  expect(text).not.toContain(KEY);

  // A provider (or a proxy in front of it) that puts the key it received into its error message.
  h.model.setScenario('echo-key', (_body, _index, headers) => ({ status: 401, errorMessage: `Incorrect API key provided: ${String(headers.authorization)}` }));
  const failing = await h.start({ prompt: 'hi', model: 'echo-key', stream: false });
  const error = await failing.result().catch((err: { cause?: Error }) => err.cause);
  // Redacted, and the failure names the endpoint and the variables to check, never the key's value.
  // The endpoint and variables of the provider that served the run (its SDK adds /v1 to Anthropic's base URL itself).
  const [base, vars] = TEST_WIRE === 'anthropic' ? ['', 'ANTHROPIC'] : ['\\/v1', 'OPENAI'];
  expect(error?.message).toMatch(
    new RegExp(`^LLM call failed: AuthenticationError: 401 Incorrect API key provided: Bearer \\[redacted\\] \\(the model endpoint http:\\/\\/127\\.0\\.0\\.1:\\d+${base} \\(${vars}_BASE_URL\\) refused ${vars}_API_KEY\\)$`),
  );
  expect(await historyText(failing)).not.toContain(KEY);
});

describe('a worker process that holds secrets in its environment', () => {
  let p: Harness;
  let worker: WorkerProcess;
  const others = { GITHUB_TOKEN: `ghp_${randomUUID()}`, AWS_SECRET_ACCESS_KEY: `aws-${randomUUID()}` };
  beforeAll(async () => {
    p = await Harness.create();
    worker = await WorkerProcess.start(p, { ...others, BAREAGENT_MODEL_TIMEOUT_MS: '20000' }); // OPENAI_API_KEY=KEY
  });
  afterAll(async () => {
    await worker.kill();
    await p.close();
  });

  test('bash runs with a minimal environment: no OPENAI_API_KEY, no other secret of the worker', async () => {
    p.model.setScenario('env', [
      { toolCalls: [{ id: 'env', name: 'bash', arguments: { command: 'env' } }, { id: 'key', name: 'bash', arguments: { command: 'echo "[${OPENAI_API_KEY:-unset}]"' } }] },
      { text: 'Looked.' },
    ]);
    const handle = await p.start({ prompt: 'env', model: 'env', workspace: p.workspace(), permissionMode: 'auto' });
    await handle.result();
    const [env, key] = toolResults(await handle.query(messagesQuery));
    const names = (env?.content ?? '').split('\n').map((line) => line.split('=')[0]);
    expect(names).toContain('PATH');
    expect(names).not.toContain('OPENAI_API_KEY');
    expect(names).not.toContain('OPENAI_BASE_URL');
    expect(names).not.toContain('GITHUB_TOKEN');
    expect(names).not.toContain('AWS_SECRET_ACCESS_KEY');
    expect(names.every((name) => ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'USER', 'SHELL', 'TMPDIR', 'TZ', 'PWD', 'SHLVL', '_', 'BAREAGENT_CALL_ID', ''].includes(name ?? ''))).toBe(true);
    expect(key?.content).toBe('[unset]\n');
    const text = await historyText(handle);
    for (const secret of [KEY, ...Object.values(others)]) expect(text).not.toContain(secret);
  });

  /**
   * `$PPID` is an expansion, so the guard asks in default mode; `auto` runs it. Commands run in
   * bubblewrap's own PID namespace (src/sandbox/): the worker, whose
   * /proc/<pid>/environ still holds the key it was started with, is out of sight.
   */
  test('bash cannot read the worker key through /proc/$PPID/environ', async () => {
    p.model.setScenario('proc-environ', [
      { toolCalls: [{ id: 'proc', name: 'bash', arguments: { command: 'cat /proc/$PPID/environ' } }] },
      { text: 'Read it.' },
    ]);
    const handle = await p.start({ prompt: 'proc', model: 'proc-environ', workspace: p.workspace(), permissionMode: 'auto' });
    await handle.result();
    const [proc] = toolResults(await handle.query(messagesQuery));
    expect(proc?.is_error).toBe(false);
    expect(proc?.content).not.toContain(KEY);
  });
});

test('no file tool reaches outside the workspace: a sweep of escapes through the workflow', async () => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'bareagent-confine-'));
  const ws = path.join(parent, 'ws');
  const outside = path.join(parent, 'outside');
  const mark = `OUTSIDE-${randomUUID()}`;
  mkdirSync(path.join(ws, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), `${mark}\n`);
  writeFileSync(path.join(ws, 'inside.txt'), 'inside\n');
  symlinkSync(outside, path.join(ws, 'link-dir'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link-file'));
  symlinkSync(path.join(outside, 'planted.txt'), path.join(ws, 'dangling'));
  symlinkSync(path.join(outside, 'newdir'), path.join(ws, 'dangling-dir'));
  const secret = path.join(outside, 'secret.txt');

  const attempts: Array<{ name: string; arguments: Record<string, unknown>; expect: 'error' | 'empty' }> = [
    ...['../outside/secret.txt', secret, '~/.bashrc', 'link-file', 'link-dir/secret.txt', 'sub/../../outside/secret.txt'].map((file_path) => ({
      name: 'read_file',
      arguments: { file_path },
      expect: 'error' as const,
    })),
    ...['../outside/planted.txt', path.join(outside, 'planted.txt'), 'link-dir/planted.txt', 'dangling', 'dangling-dir/x.txt', 'link-file'].map((file_path) => ({
      name: 'write_file',
      arguments: { file_path, content: 'planted' },
      expect: 'error' as const,
    })),
    ...['link-file', '../outside/secret.txt', secret].map((file_path) => ({
      name: 'edit_file',
      arguments: { file_path, old_text: mark, new_text: 'edited' },
      expect: 'error' as const,
    })),
    ...[{ pattern: '../*' }, { pattern: `${outside}/*` }, { pattern: '{x,..}/**' }, { pattern: '*', path: '..' }, { pattern: '*', path: 'link-dir' }].map((args) => ({
      name: 'glob',
      arguments: args,
      expect: 'error' as const,
    })),
    { name: 'glob', arguments: { pattern: 'link-dir/**' }, expect: 'empty' },
    ...[{ path: '..' }, { path: 'link-dir' }, { path: 'link-file' }, { path: outside }].map((args) => ({
      name: 'grep',
      arguments: { pattern: 'OUTSIDE', ...args },
      expect: 'error' as const,
    })),
    { name: 'grep', arguments: { pattern: 'OUTSIDE', path: '.' }, expect: 'empty' },
  ];
  // Each refused call is followed by one of the same tool that works (arguments differ each time):
  // three failures of one kind running, or five identical calls, would stop the run, which is
  // not what this test is about.
  const works = (name: string, i: number): Record<string, unknown> =>
    ({
      read_file: { file_path: 'inside.txt', limit: i + 1 },
      write_file: { file_path: `ok-${i}.txt`, content: 'ok' },
      edit_file: { file_path: 'inside.txt', old_text: 'inside', new_text: `inside ${i}` },
      glob: { pattern: `{inside,none${i}}.txt` },
      grep: { pattern: `inside|none${i}` },
    })[name] as Record<string, unknown>;
  h.model.setScenario('sweep', [
    {
      toolCalls: attempts.flatMap((a, i) => [
        { id: `x${i}`, name: a.name, arguments: a.arguments },
        { id: `ok${i}`, name: a.name, arguments: works(a.name, i) },
      ]),
    },
    { text: 'Stayed inside.' },
  ]);
  const handle = await h.start({ prompt: 'escape', model: 'sweep', workspace: ws, permissionMode: 'auto', stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Stayed inside.' });
  const all = toolResults(await handle.query(messagesQuery));
  expect(all).toHaveLength(2 * attempts.length);
  expect(all.filter((r) => r.tool_use_id.startsWith('ok')).every((r) => !r.is_error)).toBe(true);
  const results = all.filter((r) => r.tool_use_id.startsWith('x'));
  const unexpected = results.flatMap((result, i) => {
    const attempt = attempts[i] as (typeof attempts)[number];
    const label = `${attempt.name}(${JSON.stringify(attempt.arguments)}) -> ${JSON.stringify(result.content)}`;
    if (result.content.includes(mark)) return [`LEAKED ${label}`];
    if (attempt.expect === 'error' && !(result.is_error && /outside the workspace|must stay inside the workspace/.test(result.content))) return [label];
    if (attempt.expect === 'empty' && !/^(No files matched |No matches found for )[^\n]*\.$/.test(result.content)) return [label];
    return [];
  });
  expect(unexpected).toEqual([]);
  expect(readdirSync(outside)).toEqual(['secret.txt']);
  expect(readFileSync(secret, 'utf8')).toBe(`${mark}\n`);
});
