import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Message } from '../../src/common/messages';
import { byPrompt } from '../support/by-prompt';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { decidePermissionUpdate, messagesQuery, statusQuery } from '../../src/common/contract';
import { isPromptSent } from '../support/prompt-sent';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const toolResults = (messages: Message[], at: number) => (messages[at]?.content ?? []) as Array<{ content: string; is_error: boolean }>;

test('a subagent runs as a child agentRun with its own history and returns its final text as the tool result', async () => {
  h.model.setScenario(
    'sub',
    byPrompt({
      'Summarise the repo': [
        { toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'List the markdown files', agent_type: 'explore' } }] },
        { text: 'The repo has one markdown file.' },
      ],
      'List the markdown files': [
        { toolCalls: [{ id: 'g1', name: 'glob', arguments: { pattern: '*.md' } }] },
        { text: 'README.md' },
      ],
    }),
  );
  const handle = await h.start({ prompt: 'Summarise the repo', model: 'sub', workspace: h.workspace({ 'README.md': '# hi' }) });
  expect(await handle.result()).toMatchObject({ text: 'The repo has one markdown file.' });
  expect(toolResults(await handle.query(messagesQuery), 2)).toEqual([
    { type: 'tool_result', tool_use_id: 's1', content: 'README.md', is_error: false },
  ]);
  const child = h.client.workflow.getHandle(`${handle.workflowId}.sub-1`);
  const childMessages = await child.query(messagesQuery);
  expect(childMessages[0]).toEqual({ role: 'user', content: 'List the markdown files' });
  // The explore type offers read-only tools only.
  const childRequest = h.model.requestsFor('sub').find((r) => r.body.messages.some((m: { content: unknown }) => isPromptSent(m.content, 'List the markdown files')));
  expect(childRequest?.body.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual(['bash', 'glob', 'grep', 'read_file']);
});

test('what the input disallows, its subagents are not offered either', async () => {
  h.model.setScenario(
    'sub-less',
    byPrompt({
      'Look around': [{ toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'Count the files', agent_type: 'explore' } }] }, { text: 'Done.' }],
      'Count the files': [{ text: 'One.' }],
    }),
  );
  const handle = await h.start({ prompt: 'Look around', model: 'sub-less', workspace: h.workspace({ 'a.md': 'x' }), disallowedTools: ['bash'] });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  const tools = (text: string) =>
    h.model
      .requestsFor('sub-less')
      .find((r) => r.body.messages.some((m: { content: unknown }) => isPromptSent(m.content, text)))
      ?.body.tools.map((t: { function: { name: string } }) => t.function.name)
      .sort();
  expect(tools('Look around')).not.toContain('bash');
  expect(tools('Count the files')).toEqual(['glob', 'grep', 'read_file']);
});

test('a read-only type refuses a write: no write tool, and plan mode denies a writing command', async () => {
  h.model.setScenario(
    'readonly',
    byPrompt({
      'Review and fix': [
        { toolCalls: [{ id: 'r1', name: 'subagent', arguments: { task: 'Fix it', agent_type: 'code-review' } }] },
        { text: 'Reviewed.' },
      ],
      'Fix it': [
        {
          toolCalls: [
            { id: 'w1', name: 'write_file', arguments: { file_path: 'fixed.txt', content: 'x' } },
            { id: 'w2', name: 'bash', arguments: { command: 'touch fixed.txt' } },
          ],
        },
        { text: 'I could not write anything.' },
      ],
    }),
  );
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'Review and fix', model: 'readonly', workspace, permissionMode: 'bypass' });
  await handle.result();
  const child = await h.client.workflow.getHandle(`${handle.workflowId}.sub-1`).query(messagesQuery);
  expect(toolResults(child, 2).map((r) => r.content)).toEqual(['Unknown tool: write_file', 'User denied.']);
  expect(existsSync(path.join(workspace, 'fixed.txt'))).toBe(false);
});

test('nesting is bounded: past depth 3 a subagent is refused', async () => {
  h.model.setScenario('deep', [
    { toolCalls: [{ id: 'n1', name: 'subagent', arguments: { task: 'go deeper' } }] },
    { text: 'refused, as expected' },
  ]);
  const handle = await h.start({ prompt: 'deep', model: 'deep', workspace: h.workspace(), permissionMode: 'bypass', depth: 3 });
  await handle.result();
  expect(toolResults(await handle.query(messagesQuery), 2)).toEqual([
    { type: 'tool_result', tool_use_id: 'n1', content: 'Subagent refused: recursion depth 4 exceeds limit 3', is_error: true },
  ]);
});

test("a subagent is held to its type's maxTurns", async () => {
  h.model.setScenario(
    'turns',
    byPrompt({
      'Explore forever': [
        { toolCalls: [{ id: 'e1', name: 'subagent', arguments: { task: 'Look around', agent_type: 'explore' } }] },
        { text: 'The explorer gave up.' },
      ],
      'Look around': (index) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `*.${index}` } }] }),
    }),
  );
  const handle = await h.start({ prompt: 'Explore forever', model: 'turns', workspace: h.workspace(), stream: false });
  await handle.result();
  expect(toolResults(await handle.query(messagesQuery), 2)[0]).toMatchObject({
    content: 'Error: LLMCallError: Agent loop exceeded 50 iterations',
    is_error: true,
  });
});

test("a background subagent's answer comes back as a notification", async () => {
  h.model.setScenario(
    'bg-sub',
    byPrompt({
      'Research in the background': [
        { toolCalls: [{ id: 'b1', name: 'subagent', arguments: { task: 'Find the version', agent_type: 'explore', run_in_background: true } }] },
        { text: 'Waiting for the research.' },
        { text: 'The version is 1.2.3.' },
      ],
      'Find the version': [{ text: 'version 1.2.3' }],
    }),
  );
  const handle = await h.start({ prompt: 'Research in the background', model: 'bg-sub', workspace: h.workspace() });
  expect(await handle.result()).toMatchObject({ text: 'The version is 1.2.3.' });
  const messages = await handle.query(messagesQuery);
  expect(toolResults(messages, 2)[0]?.content).toBe('Submitted background task sub-1');
  expect(messages.find((m) => m.role === 'system')?.content).toContain('- Task sub-1: done - version 1.2.3');
});

test("a subagent's permission question shows in the parent's status and is answered there", async () => {
  h.model.setScenario(
    'sub-ask',
    byPrompt({
      'Delegate a change': [
        { toolCalls: [{ id: 'p1', name: 'subagent', arguments: { task: 'Create the file' } }] },
        { text: 'Delegated and done.' },
      ],
      'Create the file': [{ toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'touch made.txt' } }] }, { text: 'made' }],
    }),
  );
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'Delegate a change', model: 'sub-ask', workspace });
  const pending = await waitFor(async () => (await handle.query(statusQuery)).pendingPermissions[0], 'the child question in the parent');
  expect(pending).toMatchObject({ toolCallId: 'c1', tool: 'bash', workflowId: `${handle.workflowId}.sub-1` });
  await h.client.workflow
    .getHandle(pending.workflowId as string)
    .executeUpdate(decidePermissionUpdate, { args: [{ requestId: pending.requestId, decision: 'allow' }] });
  expect(await handle.result()).toMatchObject({ text: 'Delegated and done.' });
  expect(existsSync(path.join(workspace, 'made.txt'))).toBe(true);
  expect((await handle.query(statusQuery)).pendingPermissions).toEqual([]);
});

test('models.subagent: the subagents run on their own model, each call priced by the model that answered', async () => {
  h.model.setScenario('lead-model', [
    { toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'List the markdown files', agent_type: 'explore' } }] },
    { text: 'Done.' },
  ]);
  h.model.setScenario('cheap-model', [{ text: 'README.md' }]);
  const prices = { 'lead-model': { inputPerMTok: 10, outputPerMTok: 10 }, 'cheap-model': { inputPerMTok: 1, outputPerMTok: 1 } };
  const handle = await h.start({ prompt: 'Summarise the repo', model: 'lead-model', models: { subagent: 'cheap-model' }, prices, workspace: h.workspace({ 'README.md': '# hi' }) });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  expect(h.model.requestsFor('cheap-model')).toHaveLength(1);
  expect(h.model.requestsFor('lead-model')).toHaveLength(2);
  const child = await h.client.workflow.getHandle(`${handle.workflowId}.sub-1`).query(statusQuery);
  expect(child.usage.inputTokens).toBeGreaterThan(0);
  expect(child.costUsd).toBeCloseTo((child.usage.inputTokens + child.usage.outputTokens) / 1_000_000, 10);
});
