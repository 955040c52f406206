import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TEST_WIRE, type Harness } from '../support/harness';
import { cliHarness, runCli } from '../support/cli';
import { pendingRequest, requestIdFor, waitFor } from '../support/wait-for';
import { decidePermissionUpdate, stepsQuery } from '../../src/common/contract';

/**
 * `follow`, `message`, `cancel`, `list`, `history` and the help of every command, run as a user
 * would (`bin/bareagent.js`, no terminal) against the test dev server and a harness worker.
 */
const execFileAsync = promisify(execFile);
let h: Harness;
let env: Record<string, string>;
const suffix = randomUUID().slice(0, 8);
beforeAll(async () => {
  ({ h, env } = await cliHarness());
});
afterAll(() => h.close());

/** A run whose model first asks for `rm -rf build` (bash asks in default mode), then answers `finalText`. */
async function startAsking(name: string, finalText = 'Build folder removed.'): Promise<WorkflowHandle> {
  const model = `${name}-${suffix}`;
  h.model.setScenario(model, [
    { text: 'Let me clean up.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] },
    { text: finalText },
  ]);
  return h.start({ prompt: `clean up (${name})`, model, workspace: h.workspace({ 'build/out.js': 'x' }) }, `${name}-${suffix}`);
}

const COMMANDS = ['run', 'start', 'follow', 'status', 'approve', 'deny', 'message', 'cancel', 'list', 'history', 'messages', 'schedule', 'fork', 'resume', 'eval', 'diff', 'rewind', 'server', 'worker', 'demo', 'codec-server', 'patches', 'doctor', 'mcp', 'acp'];

test('--help lists every command, and each command has its own help with examples', async () => {
  const top = await runCli(['--help'], env);
  expect(top.code).toBe(0);
  for (const name of COMMANDS) expect(top.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  expect(top.stdout).toContain('Exit codes: 0 done, 1 the run failed, 2 bad usage or connection, 3 cancelled or terminated');
  // A few at a time: each is a Node process with tsx, and other test files share the machine.
  const helps = [];
  for (let i = 0; i < COMMANDS.length; i += 5) helps.push(...(await Promise.all(COMMANDS.slice(i, i + 5).map((name) => runCli([name, '--help'], env)))));
  helps.forEach((help, i) => {
    expect({ command: COMMANDS[i], code: help.code }).toEqual({ command: COMMANDS[i], code: 0 });
    expect(help.stdout).toContain(`Usage: bareagent ${COMMANDS[i]}`);
    expect(help.stdout).toMatch(/Examples?:/);
  });
});

test('follow streams a run started elsewhere while it works, and replays it from an offset once closed', async () => {
  const handle = await startAsking('follow', 'FOLLOW streamed answer.');
  let asked: (() => void) | undefined;
  const question = new Promise<void>((resolve) => (asked = resolve));
  const following = runCli(['follow', handle.workflowId], env, (out) => {
    if (out.includes(`bareagent approve ${handle.workflowId}`)) asked?.();
  });
  await question;
  const requestId = await requestIdFor(handle, 'call_rm');
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'allow' }] });
  const followed = await following;
  expect(followed.code).toBe(0);
  expect(followed.stdout).toContain('Let me clean up.');
  expect(followed.stdout).toContain('⏺ bash rm -rf build');
  expect(followed.stdout).toContain(`bareagent approve ${handle.workflowId} ${requestId}`);
  expect(followed.stdout).toContain('FOLLOW streamed answer.');
  expect(followed.stderr).toContain('done in 2 iteration(s)');

  const json = await runCli(['follow', handle.workflowId, '--json'], env);
  expect(json.code).toBe(0);
  const lines = json.stdout.trim().split('\n').map((line) => JSON.parse(line));
  expect(lines.at(-1)).toMatchObject({ workflowId: handle.workflowId, status: 'completed', result: { text: 'FOLLOW streamed answer.' } });
  const events = lines.slice(0, -1);
  expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
  const toolResult = events.find((e) => e.type === 'tool_result');
  expect(toolResult).toBeDefined();

  const rest = await runCli(['follow', handle.workflowId, '--json', '--from', String(toolResult.offset)], env);
  const restEvents = rest.stdout.trim().split('\n').map((line) => JSON.parse(line)).slice(0, -1);
  expect(restEvents[0]).toMatchObject({ offset: toolResult.offset, type: 'tool_result' });
  expect(restEvents.map((e) => e.delta ?? '').join('')).toContain('FOLLOW streamed answer.');
  expect(restEvents.map((e) => e.delta ?? '').join('')).not.toContain('Let me clean up.');

  const missing = await runCli(['follow', `no-such-run-${suffix}`], env);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`No run named no-such-run-${suffix} in namespace default (bareagent list shows the runs)`);
  expect((await runCli(['follow', handle.workflowId, '--from', 'abc'], env)).code).toBe(2);
});

test('follow streams the text of a run started with the Temporal CLI', async () => {
  const model = `follow-cli-${suffix}`;
  const workflowId = `follow-cli-${suffix}`;
  h.model.setScenario(model, [{ text: 'Started by the temporal binary, streamed here.', chunks: ['Started by the temporal binary, ', 'streamed here.'] }]);
  const input = JSON.stringify({ prompt: 'say where you were started', model, workspace: h.workspace() });
  await execFileAsync(h.env.cliPath, [
    'workflow', 'start', '--type', 'agentRun', '--task-queue', h.taskQueue, '--workflow-id', workflowId, '--input', input, '--address', h.env.address,
  ]);
  const followed = await runCli(['follow', workflowId], env);
  expect(followed.code).toBe(0);
  expect(followed.stdout).toContain('Started by the temporal binary, streamed here.');
});

test('list filters on status, waiting-for-human, model and provider, with the summary in the table', async () => {
  const modelA = `list-a-${suffix}`;
  const idA = `list-a-${suffix}`;
  h.model.setScenario(modelA, [{ text: 'A done.' }]);
  const handleA = await h.client.workflow.start('agentRun', {
    taskQueue: h.taskQueue,
    workflowId: idA,
    args: [{ prompt: 'list A', model: modelA, workspace: h.workspace() }],
    staticSummary: 'Summary of run A\nsecond line',
  });
  await handleA.result();
  const handleB = await startAsking('list-b');
  const modelB = `list-b-${suffix}`;
  await pendingRequest(handleB);
  const visible = (query: string) =>
    waitFor(async () => {
      for await (const info of h.client.workflow.list({ query })) return info;
      return undefined;
    }, `visibility: ${query}`);
  await visible(`BareAgentModel = '${modelB}' AND BareAgentWaitingForHuman = true`);
  await visible(`BareAgentModel = '${modelA}' AND BareAgentStatus = 'completed' AND BareAgentProvider = '${TEST_WIRE}'`);

  const byModel = await runCli(['list', '--model', modelB, '--json'], env);
  expect(byModel.code).toBe(0);
  expect(JSON.parse(byModel.stdout)).toEqual([
    expect.objectContaining({ workflowId: handleB.workflowId, status: 'awaiting_approval', waitingForHuman: true, model: modelB, executionStatus: 'running' }),
  ]);

  const waiting = JSON.parse((await runCli(['list', '--waiting', '--json', '--limit', '100'], env)).stdout) as Array<{ workflowId: string }>;
  expect(waiting.map((r) => r.workflowId)).toContain(handleB.workflowId);
  expect(waiting.map((r) => r.workflowId)).not.toContain(idA);

  const table = await runCli(['list', '--status', 'completed', '--model', modelA], env);
  expect(table.code).toBe(0);
  const [header, ...rows] = table.stdout.trim().split('\n');
  expect(header).toMatch(/^WORKFLOW ID\s+STATUS\s+ITER\s+MODEL\s+PROVIDER\s+STARTED\s+SUMMARY$/);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatch(new RegExp(`^${idA}\\s+completed\\s+\\d+\\s+${modelA}\\s+${TEST_WIRE}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+Summary of run A$`));
  expect(table.stderr).toContain(`WorkflowType = 'agentRun' AND BareAgentStatus = 'completed' AND BareAgentModel = '${modelA}'`);

  // The provider is what served the run (the worker's default here: its input names none).
  const byProvider = JSON.parse((await runCli(['list', '--model', modelA, '--provider', TEST_WIRE, '--json'], env)).stdout) as Array<{ workflowId: string; provider: string | null }>;
  expect(byProvider).toEqual([expect.objectContaining({ workflowId: idA, provider: TEST_WIRE })]);
  const otherWire = TEST_WIRE === 'openai' ? 'anthropic' : 'openai';
  expect(JSON.parse((await runCli(['list', '--model', modelA, '--provider', otherWire, '--json'], env)).stdout)).toEqual([]);

  expect((await runCli(['list', '--status', 'bogus'], env)).code).toBe(2);
  await handleB.cancel();
});

test('history prints the step records as an aligned table with each step\'s reason', async () => {
  const model = `history-${suffix}`;
  h.model.setScenario(model, [
    { text: 'Reading.', toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { file_path: 'notes.txt' } }] },
    { text: 'The notes say hello.' },
  ]);
  const handle = await h.start({ prompt: 'read the notes', model, workspace: h.workspace({ 'notes.txt': 'hello' }) }, `history-${suffix}`);
  await handle.result();
  const steps = await handle.query(stepsQuery);
  expect(steps.length).toBeGreaterThanOrEqual(2);

  const table = await runCli(['history', handle.workflowId], env);
  expect(table.code).toBe(0);
  const [header, ...rows] = table.stdout.trim().split('\n');
  expect(header).toMatch(/^STEP\s+REASON\s+TOOLS\s+NEW EVIDENCE\s+TOKENS IN\/OUT\s+ITER LEFT\s+DETAIL$/);
  expect(rows).toHaveLength(steps.length);
  steps.forEach((step, i) => expect(rows[i]).toMatch(new RegExp(`^${step.step_id}\\s+${step.reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s`)));
  expect(rows[0]).toContain('read_file notes.txt');
  // Aligned: every row's REASON column starts where the header's does.
  const reasonColumn = header!.indexOf('REASON');
  for (const row of rows) expect(row.slice(reasonColumn - 2, reasonColumn)).toBe('  ');

  const json = await runCli(['history', handle.workflowId, '--json'], env);
  expect(JSON.parse(json.stdout)).toEqual(steps);
});

test('cancel ends a waiting run as cancelled and reports it; a second cancel says it is already closed', async () => {
  const handle = await startAsking('cancel');
  await pendingRequest(handle);
  const cancelled = await runCli(['cancel', handle.workflowId], env);
  expect(cancelled.code).toBe(0);
  expect(cancelled.stderr).toContain(`Cancellation requested for ${handle.workflowId}`);
  expect(cancelled.stdout).toContain(`cancelled ${handle.workflowId}`);
  expect((await handle.describe()).status.name).toBe('CANCELLED');

  const again = await runCli(['cancel', handle.workflowId, '--json'], env);
  expect(again.code).toBe(2);
  expect(JSON.parse(again.stdout)).toEqual({ workflowId: handle.workflowId, cancelled: false, status: 'cancelled' });

  const noWait = await startAsking('cancel-no-wait');
  await pendingRequest(noWait);
  const requested = await runCli(['cancel', noWait.workflowId, '--no-wait', '--json'], env);
  expect(requested.code).toBe(0);
  expect(JSON.parse(requested.stdout)).toEqual({ workflowId: noWait.workflowId, cancelRequested: true });
  await waitFor(async () => ((await noWait.describe()).status.name === 'CANCELLED' ? true : undefined), 'the run to close as cancelled');
});

test('cancel --turn stops the turn under way and leaves the run open for the next message', async () => {
  const model = `cancel-turn-${suffix}`;
  h.model.setScenario(model, [{ toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] }]);
  const handle = await h.start({ prompt: 'clean up (cancel --turn)', model, workspace: h.workspace({ 'build/out.js': 'x' }), idleTimeout: '1m' }, model);
  await pendingRequest(handle);
  const requested = await runCli(['cancel', handle.workflowId, '--turn', '--json'], env);
  expect(requested.code).toBe(0);
  expect(JSON.parse(requested.stdout)).toEqual({ workflowId: handle.workflowId, turnCancelRequested: true });
  const steps = await waitFor(async () => {
    const recorded = await handle.query(stepsQuery);
    return recorded.some((step) => step.reason === 'turn_cancelled') ? recorded : undefined;
  }, 'the turn_cancelled step');
  expect(steps.find((step) => step.reason === 'turn_cancelled')?.detail).toBe('cancelled with bareagent cancel --turn; cancelled: bash; open for follow-ups for 1m');
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await handle.cancel();
});

test('message delivers the userMessage signal to a running run; a closed run refuses it', async () => {
  const handle = await startAsking('message');
  await pendingRequest(handle);
  const sent = await runCli(['message', handle.workflowId, 'Also update the changelog'], env);
  expect(sent.code).toBe(0);
  expect(sent.stdout).toContain(`sent to ${handle.workflowId}`);
  const history = await handle.fetchHistory();
  const signaled = (history.events ?? []).find(
    (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && e.workflowExecutionSignaledEventAttributes?.signalName === 'userMessage',
  );
  expect(signaled).toBeDefined();
  const payload = signaled!.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!;
  expect(JSON.parse(Buffer.from(payload.data!).toString())).toEqual({ text: 'Also update the changelog' });

  await handle.cancel();
  await waitFor(async () => ((await handle.describe()).status.name === 'RUNNING' ? undefined : true), 'the run to close');
  const refused = await runCli(['message', handle.workflowId, 'too late'], env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('takes no more messages');
  expect((await runCli(['message', handle.workflowId, '   '], env)).code).toBe(2);
});
