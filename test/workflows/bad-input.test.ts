/**
 * Bad input, tried on purpose: workflow input through the client and through
 * the `temporal` binary, malformed signal and update payloads, model output and tool input that
 * tool-results.test.ts and limits-and-provider.test.ts do not already cover. The worker runs in
 * its own process so that its log lines (e.g. "signal ignored") can be checked.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ToolResultBlock } from '../../src/common/messages';
import type { AgentRunResult } from '../../src/common/wire';
import { Harness } from '../support/harness';
import { pendingRequest, requestIdFor, waitFor } from '../support/wait-for';
import { WorkerProcess } from '../support/worker-process';
import { decidePermissionUpdate, messagesQuery, statusQuery } from '../../src/common/contract';
import { withoutRunContext } from '../support/prompt-sent';

let h: Harness;
let worker: WorkerProcess;
beforeAll(async () => {
  h = await Harness.create();
  worker = await WorkerProcess.start(h, { BAREAGENT_MODEL_TIMEOUT_MS: '3000' });
});
afterAll(async () => {
  await worker.kill();
  await h.close();
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function temporal(args: string[], timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(h.env.cliPath, [...args, '--address', h.env.address], { timeout: timeoutMs, maxBuffer: 16 << 20, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const startFromCli = (workflowId: string, extra: string[]) =>
  temporal(['workflow', 'start', '--type', 'agentRun', '--task-queue', h.taskQueue, '--workflow-id', workflowId, ...extra]);

async function eventKinds(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).map((e) => (Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? '?').replace('EventAttributes', ''));
}

/** How a run that should fail at once ended: its failure, whether it was closed, how fast, and no workflow task failed. */
async function outcomeOf(handle: WorkflowHandle) {
  const error = await handle.result().then(
    () => undefined,
    (err: unknown) => err,
  );
  const failure = error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure ? error.cause : undefined;
  const description = await handle.describe();
  const kinds = await eventKinds(handle);
  return {
    status: description.status.name,
    type: failure?.type,
    nonRetryable: failure?.nonRetryable,
    message: failure?.message ?? String(error),
    closedWithinMs: Number(description.closeTime) - Number(description.startTime),
    closedAtOnce: Number(description.closeTime) - Number(description.startTime) < 5_000,
    workflowTaskFailures: kinds.filter((k) => k === 'workflowTaskFailed' || k === 'workflowTaskTimedOut').length,
  };
}

const INVALID: Array<[string, unknown, string]> = [
  ['missing prompt', { workspace: '/tmp' }, 'prompt: Invalid input: expected string, received undefined'],
  ['empty prompt', { prompt: '' }, 'prompt: must be a non-empty string'],
  ['whitespace-only prompt', { prompt: ' \n\t ' }, 'prompt: must be a non-empty string'],
  ['prompt of the wrong type', { prompt: 42 }, 'prompt: Invalid input: expected string, received number'],
  ['prompt as an object', { prompt: { text: 'hi' } }, 'prompt: Invalid input: expected string, received object'],
  ['workspace of the wrong type', { prompt: 'x', workspace: 7 }, 'workspace: Invalid input: expected string'],
  ['stream as a string', { prompt: 'x', stream: 'yes' }, 'stream: Invalid input: expected boolean'],
  ['maxIterations 0', { prompt: 'x', maxIterations: 0 }, 'maxIterations:'],
  ['maxIterations 2.5', { prompt: 'x', maxIterations: 2.5 }, 'maxIterations:'],
  ['approvalTimeout "soon"', { prompt: 'x', approvalTimeout: 'soon' }, 'approvalTimeout:'],
  ['a malformed permission rule', { prompt: 'x', permissionRules: { allow: ['bash(npm test'] } }, 'permissionRules.allow.0: must be tool'],
  ['permissionRules as a list', { prompt: 'x', permissionRules: ['bash'] }, 'permissionRules: Invalid input: expected object'],
  ['an unknown field', { prompt: 'x', colour: 'blue' }, 'colour: unknown field'],
  ['a misspelt field', { prompt: 'x', permisionMode: 'auto' }, 'permisionMode: unknown field'],
  ['a nested unknown field', { prompt: 'x', budgets: { maxTokenz: 5 } }, 'budgets.maxTokenz: unknown field'],
  ['several problems at once', { prompt: '', maxIterations: -1, colour: 1 }, 'prompt: must be a non-empty string; maxIterations:'],
  ['a string instead of an object', 'fix the tests', '(input): expected a JSON object with a "prompt" field'],
  ['null', null, '(input): expected a JSON object with a "prompt" field'],
  ['an array', [{ prompt: 'x' }], '(input): expected a JSON object with a "prompt" field'],
];

const expected = (fragment: string) => ({
  status: 'FAILED',
  type: 'InvalidInput',
  nonRetryable: true,
  message: expect.stringContaining(fragment),
  closedWithinMs: expect.any(Number),
  closedAtOnce: true,
  workflowTaskFailures: 0,
});

describe('workflow input', () => {
  test('through the client: each bad input fails the run at once, closed as FAILED with a non-retryable InvalidInput naming the field', async () => {
    const runs = await Promise.all(
      INVALID.map(([, input]) => h.client.workflow.start('agentRun', { taskQueue: h.taskQueue, workflowId: `bad-client-${Math.random()}`, args: [input] })),
    );
    const noArgument = await h.client.workflow.start('agentRun', { taskQueue: h.taskQueue, workflowId: `bad-client-none-${Date.now()}`, args: [] });
    const outcomes = await Promise.all([...runs, noArgument].map(outcomeOf));
    expect(Object.fromEntries(outcomes.map((o, i) => [INVALID[i]?.[0] ?? 'no argument at all', o]))).toEqual(
      Object.fromEntries([...INVALID.map(([label, , fragment]) => [label, expected(fragment)]), ['no argument at all', expected('(input): expected a JSON object')]]),
    );
  });

  test('through the Temporal CLI: the same, and a run started without --input', async () => {
    const stamp = Date.now();
    const started = await Promise.all(INVALID.map(([, input], i) => startFromCli(`bad-cli-${i}-${stamp}`, ['--input', JSON.stringify(input)])));
    expect(started.map((s) => s.code)).toEqual(INVALID.map(() => 0));
    expect(await startFromCli(`bad-cli-none-${stamp}`, [])).toMatchObject({ code: 0 });
    const ids = [...INVALID.map((_, i) => `bad-cli-${i}-${stamp}`), `bad-cli-none-${stamp}`];
    const outcomes = await Promise.all(ids.map((id) => outcomeOf(h.client.workflow.getHandle(id))));
    expect(Object.fromEntries(outcomes.map((o, i) => [INVALID[i]?.[0] ?? 'no --input', o]))).toEqual(
      Object.fromEntries([...INVALID.map(([label, , fragment]) => [label, expected(fragment)]), ['no --input', expected('(input): expected a JSON object')]]),
    );
    // Not JSON at all: the CLI refuses before anything reaches the server.
    const notJson = await startFromCli(`bad-cli-notjson-${stamp}`, ['--input', '{prompt: x}']);
    expect(notJson.code).not.toBe(0);
    expect(notJson.stderr).toContain('input #1 is not valid JSON');
  });

  test('a prompt over 2 MB: the server refuses the start itself (blob size limit), from the client and from the CLI; no run exists', async () => {
    const prompt = 'p'.repeat(2 * 1024 * 1024 + 1024);
    const workflowId = `too-big-${Date.now()}`;
    const error = (await h.start({ prompt }, workflowId).catch((err: unknown) => err)) as Error & { cause?: Error };
    expect(error).toBeInstanceOf(Error);
    expect(`${error.message} | ${error.cause?.message}`).toContain('Blob data size exceeds limit');
    await expect(h.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

    // The CLI cannot take 2 MB in one argument (Linux caps one argv string at 128 KiB): --input-file.
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'big-input-')), 'input.json');
    writeFileSync(file, JSON.stringify({ prompt }));
    const cli = await startFromCli(`${workflowId}-cli`, ['--input-file', file]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('Blob data size exceeds limit');
    await expect(h.client.workflow.getHandle(`${workflowId}-cli`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  test('a 1 MB prompt, under the limit, runs normally', async () => {
    h.model.setScenario('mega-prompt', [{ text: 'Read it all.' }]);
    const prompt = 'm'.repeat(1024 * 1024);
    expect(await (await h.start({ prompt, model: 'mega-prompt', stream: false })).result()).toMatchObject({ text: 'Read it all.' });
    expect(withoutRunContext(h.model.requestsFor('mega-prompt')[0]?.body.messages.find((m: { role: string }) => m.role === 'user').content)).toHaveLength(prompt.length);
  });

  test('input as raw bytes (--input-meta encoding=binary/plain) fails as InvalidInput too', async () => {
    const id = `bad-binary-${Date.now()}`;
    expect(await startFromCli(id, ['--input', '{"prompt":"x"}', '--input-meta', 'encoding=binary/plain'])).toMatchObject({ code: 0 });
    expect(await outcomeOf(h.client.workflow.getHandle(id))).toMatchObject({ status: 'FAILED', type: 'InvalidInput', workflowTaskFailures: 0 });
  });

  /** A payload the SDK cannot decode reaches the zod schema as a value it rejects (src/common/payload-converter.ts). */
  test('input in an unknown encoding fails the run at once as InvalidInput, not a workflow task failing for ever', async () => {
    const id = `bad-encoding-${Date.now()}`;
    expect(await startFromCli(id, ['--input', '{"prompt":"x"}', '--input-meta', 'encoding=bogus/x'])).toMatchObject({ code: 0 });
    expect(await outcomeOf(h.client.workflow.getHandle(id))).toMatchObject({ status: 'FAILED', type: 'InvalidInput', workflowTaskFailures: 0 });
  });
});

describe('signals and updates with malformed payloads', () => {
  const workspaces = new Map<string, string>();
  const readdirOf = async (handle: WorkflowHandle) => readdirSync(workspaces.get(handle.workflowId) as string);
  const askingRun = async (name: string) => {
    h.model.setScenario(name, [
      { toolCalls: [{ id: 'ask', name: 'bash', arguments: { command: 'touch allowed.txt' } }] },
      { text: 'Allowed and done.' },
    ]);
    const workspace = h.workspace();
    const handle = await h.start({ prompt: name, model: name, workspace });
    workspaces.set(handle.workflowId, workspace);
    await pendingRequest(handle, 'ask');
    return handle;
  };

  test('are ignored with a log line (signals) or rejected with the reason (updates); the run stays healthy and finishes', async () => {
    const handle = await askingRun('malformed-signals');
    const logBefore = worker.output.text.length;
    const signals: Array<[string, unknown[]]> = [
      ['permissionDecision', [{}]],
      ['permissionDecision', ['allow']],
      ['permissionDecision', []],
      ['permissionDecision', [null]],
      ['permissionDecision', [{ requestId: 5, decision: 'allow' }]],
      ['permissionDecision', [{ requestId: 'ask', decision: 'maybe' }]],
      ['permissionDecision', [{ requestId: 'ask', decision: 'allow', extra: true }]],
      ['permissionDecision', [{ requestId: 'nope', decision: 'allow' }]],
      ['userMessage', [{}]],
      ['userMessage', [{ text: 5 }]],
      ['userMessage', [{ text: '   ' }]],
      ['userMessage', ['hello']],
      ['noSuchSignal', [{ anything: 1 }]],
    ];
    for (const [name, args] of signals) await handle.signal(name, ...args);
    const cliSignal = await temporal(['workflow', 'signal', '--workflow-id', handle.workflowId, '--name', 'permissionDecision', '--input', '{"requestId":"ask"}']);
    expect(cliSignal.code).toBe(0); // a signal is accepted by the server; the workflow ignores it

    const updates: Array<[[unknown?], string]> = [
      [[{}], 'invalid decision: requestId:'],
      [[undefined], 'invalid decision: (input):'],
      [[{ requestId: 'ask', decision: 'yes' }], 'invalid decision: decision:'],
      [[{ requestId: 'nope', decision: 'allow' }], 'no pending permission request with id nope'],
      [[{ requestId: 'ask', decision: 'allow', by: 'me' }], 'by: unknown field'],
    ];
    for (const [args, reason] of updates) {
      const error = (await handle.executeUpdate(decidePermissionUpdate, { args: args as [unknown] }).catch((err: unknown) => err)) as Error & { cause?: Error };
      expect(`${error.message}: ${error.cause?.message}`).toContain(reason);
    }
    const cliUpdate = await temporal(['workflow', 'update', 'execute', '--workflow-id', handle.workflowId, '--name', 'decidePermission', '--input', '{"decision":"allow"}']);
    expect(cliUpdate.code).not.toBe(0);
    expect(cliUpdate.stderr).toContain('invalid decision: requestId:');
    const cliUnknown = await temporal(['workflow', 'update', 'execute', '--workflow-id', handle.workflowId, '--name', 'noSuchUpdate', '--input', '{}']);
    expect(cliUnknown.code).not.toBe(0);
    expect(cliUnknown.stderr).toContain('No registered handler for update: noSuchUpdate');

    // Still waiting on the same question, nothing failed, and the worker said why it ignored each signal.
    const status = await handle.query(statusQuery);
    expect(status).toMatchObject({ phase: 'awaiting_approval', pendingPermissions: [{ toolCallId: 'ask' }] });
    const log = await waitFor(async () => {
      const text = worker.output.text.slice(logBefore);
      return (text.match(/signal ignored/g) ?? []).length >= 13 ? text : undefined;
    }, 'the worker to log the ignored signals');
    expect(log).toContain('permissionDecision signal ignored: invalid decision: requestId: Invalid input: expected string, received undefined');
    expect(log).toContain('permissionDecision signal ignored: invalid decision: decision: Invalid option');
    expect(log).toContain('permissionDecision signal ignored: invalid decision: extra: unknown field');
    expect(log).toContain('permissionDecision signal ignored: no pending permission request with id nope');
    expect(log).toContain('userMessage signal ignored: text:');

    await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 'ask'), decision: 'allow' }] });
    expect(await handle.result()).toMatchObject({ text: 'Allowed and done.' });
    expect((await eventKinds(handle)).filter((k) => k === 'workflowTaskFailed')).toEqual([]);
  });

  /** An undecodable signal is ignored with a log line; the run stays healthy and can be answered. */
  test('a signal payload in an unknown encoding is ignored and the run goes on', async () => {
    const handle = await askingRun('undecodable-signal');
    const sent = await temporal([
      'workflow', 'signal', '--workflow-id', handle.workflowId, '--name', 'permissionDecision',
      '--input', '{"requestId":"ask","decision":"allow"}', '--input-meta', 'encoding=bogus/x',
    ]);
    expect(sent.code).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(await readdirOf(handle)).toEqual([]); // the approval inside the bad payload did not take effect
    await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: await requestIdFor(handle, 'ask'), decision: 'allow' }] });
    expect(await handle.result()).toMatchObject({ text: 'Allowed and done.' });
    expect((await eventKinds(handle)).filter((k) => k === 'workflowTaskFailed')).toEqual([]);
  });
});

describe('model output', () => {
  const toolResultsOf = async (handle: WorkflowHandle) =>
    (await handle.query(messagesQuery)).flatMap((m) =>
      m.role === 'user' && Array.isArray(m.content) ? (m.content as ToolResultBlock[]) : [],
    );

  test.each([false, true])('a 1 MB answer (stream %s) completes the run with the whole text', async (stream) => {
    const text = 'a'.repeat(1024 * 1024);
    const scenario = `mega-answer-${stream}`;
    h.model.setScenario(scenario, [{ text }]);
    const result = (await (await h.start({ prompt: 'say a lot', model: scenario, stream })).result()) as AgentRunResult;
    expect(result).toMatchObject({ stopReason: 'final_answer', iterations: 1 });
    expect(result.text).toHaveLength(text.length);
  });

  test.each([
    [false, "LLM call failed: ReplyTooLarge: the model's reply is 2621"],
    [true, 'LLM call failed: ServiceError: Failed to signal Workflow'],
  ])('a 2.5 MB answer (stream %s), over Temporal\'s 2 MB payload limit, fails the run at once with LLMCallError', async (stream, message) => {
    const scenario = `giga-answer-${stream}`;
    h.model.setScenario(scenario, () => ({ text: 'b'.repeat(2.5 * 1024 * 1024) }));
    const outcome = await outcomeOf(await h.start({ prompt: 'say too much', model: scenario, stream }));
    expect(outcome).toMatchObject({ status: 'FAILED', type: 'LLMCallError', nonRetryable: true, workflowTaskFailures: 0 });
    expect(outcome.message.startsWith(message)).toBe(true);
    expect(outcome.closedWithinMs).toBeLessThan(15_000);
    expect(h.model.requestsFor(scenario)).toHaveLength(1); // not retried
  });

  test('500 and 502 before an answer: retried, the run completes', async () => {
    h.model.setScenario('flaky', [{ status: 500, errorMessage: 'oops' }, { status: 502, errorMessage: 'bad gateway' }, { text: 'Third time.' }]);
    expect(await (await h.start({ prompt: 'hi', model: 'flaky', stream: false })).result()).toMatchObject({ text: 'Third time.' });
    expect(h.model.requestsFor('flaky')).toHaveLength(3);
  });

  test('a hung streaming connection times out and is retried', async () => {
    h.model.setScenario('hung-stream', [{ hang: true }, { text: 'Streamed the second time.' }]);
    expect(await (await h.start({ prompt: 'hi', model: 'hung-stream', stream: true })).result()).toMatchObject({ text: 'Streamed the second time.' });
    expect(h.model.requestsFor('hung-stream')).toHaveLength(2);
  });

  test('tool-call arguments that are JSON but not an object, and a tool without a name, are error results; the loop goes on', async () => {
    h.model.setScenario('odd-calls', [
      {
        toolCalls: [
          { id: 'arr', name: 'glob', arguments: '["*.md"]' },
          { id: 'nul', name: 'grep', arguments: 'null' },
          { id: 'str', name: 'read_file', arguments: '"notes.txt"' },
          { id: 'empty', name: 'write_file', arguments: '' },
          { id: 'noname', name: '', arguments: {} },
        ],
      },
      { text: 'Recovered.' },
    ]);
    const handle = await h.start({ prompt: 'odd', model: 'odd-calls', workspace: h.workspace(), stream: false, permissionMode: 'auto' });
    expect(await handle.result()).toMatchObject({ text: 'Recovered.' });
    const results = await toolResultsOf(handle);
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ['arr', true],
      ['nul', true],
      ['str', true],
      ['empty', true],
      ['noname', true],
    ]);
    expect(results.slice(0, 4).map((r) => r.content)).toEqual([
      expect.stringMatching(/^Error: InvalidArguments: glob: /),
      expect.stringMatching(/^Error: InvalidArguments: grep: /),
      expect.stringMatching(/^Error: InvalidArguments: read_file: /),
      expect.stringMatching(/^Error: InvalidArguments: write_file: /),
    ]);
    expect(results[4]?.content).toBe('Unknown tool: ');
  });
});

describe('tool input through the workflow', () => {
  test('escapes, symlinks, binary and huge files, and a command that prints without end: clear errors or capped results', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'bad-input-outside-'));
    writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE\n');
    const workspace = h.workspace({ 'ok.txt': 'one\ntwo\nthree\n' });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
    writeFileSync(path.join(workspace, 'blob.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 3]));
    writeFileSync(path.join(workspace, 'huge.txt'), `${'h'.repeat(99)}\n`.repeat(12 * 10_240)); // 12 MB, over the 10 MB read limit

    // Each failing call is followed by one of the same tool that works (three of one kind running stop the run).
    const calls = [
      ['e1', 'read_file', { file_path: '../escape.txt' }],
      ['ok1', 'read_file', { file_path: 'ok.txt', limit: 1 }],
      ['e2', 'read_file', { file_path: '/etc/passwd' }],
      ['ok2', 'read_file', { file_path: 'ok.txt', limit: 2 }],
      ['e3', 'read_file', { file_path: '~/.ssh/id_rsa' }],
      ['ok3', 'read_file', { file_path: 'ok.txt', limit: 3 }],
      ['e4', 'read_file', { file_path: 'link.txt' }],
      ['ok4', 'read_file', { file_path: 'ok.txt', offset: 1 }],
      ['bin', 'read_file', { file_path: 'blob.bin' }],
      ['huge', 'read_file', { file_path: 'huge.txt' }],
      ['grep-huge', 'grep', { pattern: 'hhhh', path: '.' }],
      ['yes', 'bash', { command: 'yes', timeout: 2 }],
      ['noise', 'bash', { command: 'head -c 200000 /dev/urandom' }],
    ] as const;
    h.model.setScenario('tool-input', [
      { toolCalls: calls.map(([id, name, args]) => ({ id, name, arguments: args })) },
      { text: 'Handled.' },
    ]);
    const handle = await h.start({ prompt: 'tools', model: 'tool-input', workspace, permissionMode: 'auto', stream: false });
    expect(await handle.result()).toMatchObject({ text: 'Handled.' });
    const byId = new Map(
      (await handle.query(messagesQuery))
        .flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? (m.content as ToolResultBlock[]) : []))
        .map((r) => [r.tool_use_id, r]),
    );
    const content = (id: string) => byId.get(id)?.content ?? '';
    expect(content('e1')).toBe('Error: WorkspaceEscapeError: Path "../escape.txt" is outside the workspace');
    expect(content('e2')).toBe('Error: WorkspaceEscapeError: Path "/etc/passwd" is outside the workspace: use a path relative to the workspace');
    expect(content('e3')).toBe('Error: WorkspaceEscapeError: Path "~/.ssh/id_rsa" is outside the workspace: ~ is not allowed');
    expect(content('e4')).toBe('Error: WorkspaceEscapeError: Path "link.txt" is outside the workspace: a symlink leads out of it');
    expect(content('ok4')).toBe('2: two\n3: three');
    expect(content('bin')).toBe('Error: ToolError: Binary file, not shown: blob.bin');
    expect(content('huge').length).toBeLessThan(30_200);
    expect(content('huge')).toMatch(/\[lines 1-\d+ of at least \d+; read on with offset=\d+\]\n\[file truncated: only the first 10485760 bytes read\]$/);
    expect(content('grep-huge')).toBe('No matches found for "hhhh" in the workspace.\n[1 files over 1 MB skipped]');
    expect(content('yes')).toMatch(/^Error: command timed out after 2 seconds\ny\ny\n/);
    expect(content('yes').length).toBeLessThan(30_200);
    // Head and tail, with how much was cut between them.
    expect(content('yes')).toMatch(/\n\[output truncated: \d+ characters cut here; the last lines follow\]\ny\n/);
    expect(byId.get('noise')?.is_error).toBe(false);
    expect(content('noise').length).toBeLessThan(30_200);
    // The caps keep the history small: no result carried megabytes into it.
    const history = await handle.fetchHistory();
    expect(JSON.stringify(history).length).toBeLessThan(2_000_000);
  });
});
