import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Harness } from '../support/harness';
import { cliEnv } from '../support/cli';
import { waitFor } from '../support/wait-for';

const ROOT = path.resolve(__dirname, '../..');

let h: Harness;
let mcp: Client;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
  mcp = new Client({ name: 'mcp-test-agent', version: '1.0.0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'bin/bareagent.js'), 'mcp'],
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), ...cliEnv(h) },
      stderr: 'pipe',
    }),
  );
});
afterAll(async () => {
  await mcp?.close();
  await h.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; value: any; text: string }> {
  const result = (await mcp.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  const text = result.content[0]?.text ?? '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  return { isError: result.isError === true, value, text };
}

test('the tools say what they cost and that runs outlive the caller', async () => {
  const { tools } = await mcp.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['answer_permission', 'run_events', 'run_result', 'send_message', 'start_run']);
  for (const tool of tools) expect(tool.description).toContain('go on after this conversation');
  expect(tools.find((t) => t.name === 'start_run')?.description).toContain('costs model tokens');
});

test('start, a permission question answered through MCP, a follow-up, the result', async () => {
  h.model.setScenario('mcp-turns', [
    { text: 'Making it.', toolCalls: [{ id: 'call_touch', name: 'bash', arguments: { command: 'touch made.txt' } }] },
    { text: 'Made it.' },
    { text: 'Nothing else to do.' },
  ]);
  const workspace = h.workspace();
  const started = await call('start_run', { workspace, prompt: 'make a file', model: 'mcp-turns', idleTimeout: '5m' });
  expect(started.isError).toBe(false);
  const { workflowId } = started.value;
  expect(workflowId).toMatch(/^bareagent-/);

  const asking = await waitFor(async () => {
    const read = await call('run_events', { workflowId });
    return read.value.questions.length > 0 ? read.value : undefined;
  }, 'the question through run_events');
  const [question] = asking.questions;
  expect(question).toMatchObject({ tool: 'bash', input: { command: 'touch made.txt' }, inputDigest: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(asking.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['tool_call', 'permission_request']));
  expect(existsSync(path.join(workspace, 'made.txt'))).toBe(false);

  // A digest of another input is refused, and the question stays open.
  const wrong = await call('answer_permission', { workflowId, requestId: question.requestId, inputDigest: '0'.repeat(64), decision: 'allow' });
  expect(wrong.isError).toBe(true);
  expect(wrong.text).toMatch(/^Refused: /);
  const allowed = await call('answer_permission', { workflowId, requestId: question.requestId, inputDigest: question.inputDigest, decision: 'allow' });
  expect(allowed).toMatchObject({ isError: false, value: { requestId: question.requestId, decision: 'allow' } });

  const idle = await waitFor(async () => {
    const read = await call('run_events', { workflowId, fromOffset: asking.nextOffset });
    return read.value.phase === 'idle' ? read.value : undefined;
  }, 'the run idle after its answer');
  expect(existsSync(path.join(workspace, 'made.txt'))).toBe(true);
  // From the offset on: the decision and the tool's result, nothing before it again.
  expect(idle.events[0].offset).toBe(asking.nextOffset);
  expect(idle.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['permission_decided', 'tool_result']));
  const notYet = await call('run_result', { workflowId, waitSeconds: 0.2 });
  expect(notYet.value).toMatchObject({ done: false, phase: 'idle' });

  expect((await call('send_message', { workflowId, text: 'anything else?' })).value).toEqual({ workflowId, sent: true });
  // The follow-up is the model's third call; the run answers it and idles again.
  await waitFor(async () => (h.model.requestsFor('mcp-turns').length >= 3 ? true : undefined), 'the follow-up reaching the model');
  const followed = await waitFor(async () => {
    const read = await call('run_events', { workflowId, fromOffset: idle.nextOffset });
    return read.value.phase === 'idle' && read.value.events.some((e: { type: string }) => e.type === 'step') ? read.value : undefined;
  }, 'the answer to the follow-up');
  const said = followed.events.filter((e: { type: string }) => e.type === 'text').map((e: { delta: string }) => e.delta).join('');
  expect(said).toBe('Nothing else to do.');

  await h.client.workflow.getHandle(workflowId).cancel();
  const result = await call('run_result', { workflowId, waitSeconds: 20 });
  expect(result.value).toMatchObject({ done: true, status: 'cancelled' });
});

test('bad input is refused before any run exists, with the reason', async () => {
  const missing = path.join(h.workspace(), 'not-there');
  const refused = await call('start_run', { workspace: missing, prompt: 'x', model: 'mcp-turns', id: 'mcp-never-1' });
  expect(refused).toMatchObject({ isError: true });
  expect(refused.text).toContain(`Workspace ${missing} does not exist`);
  const budget = await call('start_run', { workspace: h.workspace(), prompt: 'x', maxWallClock: 'soon', id: 'mcp-never-2' });
  expect(budget.isError).toBe(true);
  for (const id of ['mcp-never-1', 'mcp-never-2']) await expect(h.client.workflow.getHandle(id).describe()).rejects.toThrow(/not found/i);
  expect((await call('send_message', { workflowId: 'mcp-no-such-run', text: 'hi' })).text).toContain('No run mcp-no-such-run');
});
