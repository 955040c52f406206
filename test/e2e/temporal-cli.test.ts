import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';

/**
 * The README's "From the Temporal CLI" commands, run with the real `temporal` binary against the
 * test dev server; the harness's worker polls its own task queue instead of `bareagent`.
 */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

interface TemporalResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `temporal <args> --address <test server>`; never rejects, so a test can assert on failures too. */
function temporal(args: string[], timeoutMs = 30_000): Promise<TemporalResult> {
  return new Promise((resolve) => {
    execFile(h.env.cliPath, [...args, '--address', h.env.address], { timeout: timeoutMs, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr: err && typeof err.code !== 'number' ? `${stderr}\n${err.message}` : stderr });
    });
  });
}

/** Runs a command that must succeed and parses its `-o json` output. */
async function temporalJson<T = any>(args: string[], timeoutMs?: number): Promise<T> {
  const result = await temporal([...args, '-o', 'json'], timeoutMs);
  if (result.code !== 0) throw new Error(`temporal ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

const query = async (workflowId: string, name: string) =>
  (await temporalJson<{ queryResult: any[] }>(['workflow', 'query', '--workflow-id', workflowId, '--name', name])).queryResult[0];

/** Starts an agentRun from the CLI whose model asks once for `touch <file>` (bash asks in default mode). */
async function startAsking(workflowId: string, file: string) {
  const scenario = `cli-${workflowId}`;
  h.model.setScenario(scenario, [
    { text: 'Creating the file.', toolCalls: [{ id: `call_${workflowId}`, name: 'bash', arguments: { command: `touch ${file}` } }] },
    { text: `Finished with ${file}.` },
  ]);
  const workspace = h.workspace();
  const input = JSON.stringify({ prompt: `create ${file}`, model: scenario, workspace });
  const started = await temporal([
    'workflow', 'start', '--type', 'agentRun', '--task-queue', h.taskQueue, '--workflow-id', workflowId, '--input', input,
  ]);
  expect(started).toMatchObject({ code: 0 });
  expect(started.stdout).toContain(workflowId);
  const pending = await waitFor(async () => {
    const status = await query(workflowId, 'status');
    return status.pendingPermissions?.length ? status : undefined;
  }, `a pending permission request in ${workflowId} (via temporal workflow query)`);
  return { workspace, toolCallId: `call_${workflowId}`, requestId: pending.pendingPermissions[0].requestId as string, status: pending };
}

test('start, query status, allow by signal, query messages, result and describe', async () => {
  const workflowId = `cli-allow-${Date.now()}`;
  const { workspace, requestId, toolCallId, status } = await startAsking(workflowId, 'made-by-cli.txt');
  expect(status).toMatchObject({
    phase: 'awaiting_approval',
    iteration: 1,
    pendingPermissions: [{ requestId, toolCallId, tool: 'bash', input: { command: 'touch made-by-cli.txt' } }],
  });
  expect(existsSync(path.join(workspace, 'made-by-cli.txt'))).toBe(false);

  const signal = await temporal([
    'workflow', 'signal', '--workflow-id', workflowId, '--name', 'permissionDecision',
    '--input', JSON.stringify({ requestId, decision: 'allow' }),
  ]);
  expect(signal).toMatchObject({ code: 0 });

  // `workflow result` waits for the run to close.
  const result = await temporalJson(['workflow', 'result', '--workflow-id', workflowId], 60_000);
  expect(result).toMatchObject({
    status: 'COMPLETED',
    result: { text: 'Finished with made-by-cli.txt.', stopReason: 'final_answer', iterations: 2 },
  });
  expect(existsSync(path.join(workspace, 'made-by-cli.txt'))).toBe(true);

  const messages = await query(workflowId, 'messages');
  expect(messages).toEqual([
    { role: 'user', content: 'create made-by-cli.txt' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Creating the file.' },
        { type: 'tool_use', id: toolCallId, name: 'bash', input: { command: 'touch made-by-cli.txt' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolCallId, content: '(no output; exit code 0)', is_error: false }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Finished with made-by-cli.txt.' }] },
  ]);
  const finalStatus = await query(workflowId, 'status');
  expect(finalStatus).toMatchObject({ phase: 'completed', iteration: 2 });
  // The CLI's JSON printer turns the workflow's empty array into null.
  expect(finalStatus.pendingPermissions ?? []).toEqual([]);

  const described = await temporal(['workflow', 'describe', '--workflow-id', workflowId]);
  expect(described.code).toBe(0);
  expect(described.stdout).toMatch(/Status\s+COMPLETED/);
  expect(described.stdout).toContain('"text":"Finished with made-by-cli.txt."');
  const describedJson = await temporalJson(['workflow', 'describe', '--workflow-id', workflowId]);
  expect(describedJson.workflowExecutionInfo).toMatchObject({
    type: { name: 'agentRun' },
    status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED',
    taskQueue: h.taskQueue,
  });
});

test('deny with `temporal workflow update execute --name decidePermission`; an unknown id is refused', async () => {
  const workflowId = `cli-deny-${Date.now()}`;
  const { workspace, requestId, toolCallId } = await startAsking(workflowId, 'never.txt');

  const unknown = await temporal([
    'workflow', 'update', 'execute', '--workflow-id', workflowId, '--name', 'decidePermission',
    '--input', JSON.stringify({ requestId: 'call_nope', decision: 'deny' }),
  ]);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain('no pending permission request with id call_nope');

  const update = await temporalJson([
    'workflow', 'update', 'execute', '--workflow-id', workflowId, '--name', 'decidePermission',
    '--input', JSON.stringify({ requestId, decision: 'deny', reason: 'not on main' }),
  ]);
  expect(update).toMatchObject({ name: 'decidePermission', result: { requestId, decision: 'deny' } });

  const result = await temporalJson(['workflow', 'result', '--workflow-id', workflowId], 60_000);
  expect(result).toMatchObject({ status: 'COMPLETED', result: { text: 'Finished with never.txt.' } });
  const messages = await query(workflowId, 'messages');
  expect(messages[2]).toEqual({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: toolCallId, content: 'User denied.', is_error: true }],
  });
  expect(existsSync(path.join(workspace, 'never.txt'))).toBe(false);
});

test('`temporal workflow cancel` ends a run waiting for approval as CANCELED, and the tool never runs', async () => {
  const workflowId = `cli-cancel-${Date.now()}`;
  const { workspace } = await startAsking(workflowId, 'cancelled.txt');

  const cancel = await temporal(['workflow', 'cancel', '--workflow-id', workflowId]);
  expect(cancel).toMatchObject({ code: 0 });

  const result = await temporal(['workflow', 'result', '--workflow-id', workflowId, '-o', 'json'], 60_000);
  expect(result.code).not.toBe(0); // the CLI exits non-zero for a run that did not complete
  expect(JSON.parse(result.stdout)).toMatchObject({ status: 'CANCELED', closeEvent: { eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED' } });

  const described = await temporal(['workflow', 'describe', '--workflow-id', workflowId]);
  expect(described.code).toBe(0);
  expect(described.stdout).toMatch(/CancelRequested\s+true/);
  expect(described.stdout).toMatch(/Status\s+CANCELED/);
  const describedJson = await temporalJson(['workflow', 'describe', '--workflow-id', workflowId]);
  expect(describedJson.workflowExecutionInfo.status).toBe('WORKFLOW_EXECUTION_STATUS_CANCELED');
  expect(existsSync(path.join(workspace, 'cancelled.txt'))).toBe(false);
});

test('invalid input from the CLI fails the run at once as InvalidInput, naming the field', async () => {
  const workflowId = `cli-invalid-${Date.now()}`;
  const started = await temporal([
    'workflow', 'start', '--type', 'agentRun', '--task-queue', h.taskQueue, '--workflow-id', workflowId, '--input', '{"prompt":""}',
  ]);
  expect(started).toMatchObject({ code: 0 });

  const result = await temporal(['workflow', 'result', '--workflow-id', workflowId], 60_000);
  expect(result.code).not.toBe(0);
  expect(result.stdout).toMatch(/Status\s+FAILED/);
  expect(result.stdout).toContain('Invalid agentRun input: prompt: must be a non-empty string');

  const described = await temporalJson(['workflow', 'describe', '--workflow-id', workflowId]);
  expect(described.workflowExecutionInfo.status).toBe('WORKFLOW_EXECUTION_STATUS_FAILED');
  const failure = described.closeEvent.workflowExecutionFailedEventAttributes.failure;
  expect(failure).toMatchObject({
    message: expect.stringContaining('prompt'),
    applicationFailureInfo: { type: 'InvalidInput', nonRetryable: true },
  });

  // An unknown field is named too.
  const unknownId = `cli-unknown-field-${Date.now()}`;
  const input = JSON.stringify({ prompt: 'hello', workspace: h.workspace(), permisionMode: 'auto' });
  expect(
    await temporal(['workflow', 'start', '--type', 'agentRun', '--task-queue', h.taskQueue, '--workflow-id', unknownId, '--input', input]),
  ).toMatchObject({ code: 0 });
  const unknown = await temporal(['workflow', 'result', '--workflow-id', unknownId, '-o', 'json'], 60_000);
  expect(unknown.code).not.toBe(0);
  const unknownFailure = JSON.parse(unknown.stdout).closeEvent.workflowExecutionFailedEventAttributes.failure;
  expect(unknownFailure).toMatchObject({ message: expect.stringContaining('permisionMode'), applicationFailureInfo: { type: 'InvalidInput' } });
});
