import { realpathSync } from 'node:fs';
import { byPrompt } from '../support/by-prompt';
import { Harness } from '../support/harness';
import { localActivityTypes } from '../support/history-activities';
import { messagesQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const systemOf = (request: { body: { messages: Array<{ role: string; content: unknown }> } } | undefined) =>
  request?.body.messages.find((m) => m.role === 'system')?.content as string | undefined;

async function run(input: Record<string, unknown>, files: Record<string, string> = { 'greet.js': 'x', 'src/a.js': 'y' }) {
  const scenario = `sys-${Math.random()}`;
  h.model.setScenario(scenario, [{ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: 'created-later.txt', content: 'z' } }] }, { text: 'Done.' }]);
  const workspace = h.workspace(files);
  const handle = await h.start({ prompt: 'Work', model: scenario, workspace, stream: false, permissionMode: 'auto', ...input });
  await handle.result();
  return { workspace, handle, requests: h.model.requestsFor(scenario) };
}

const firstUserOf = (request: { body: { messages: Array<{ role: string; content: unknown }> } } | undefined) =>
  request?.body.messages.find((m) => m.role === 'user')?.content as string | undefined;

test('every turn sends the default prompt, the same for every run; the run context, read at run start, heads the first message', async () => {
  const { workspace, handle, requests } = await run({});
  const first = systemOf(requests[0]);
  expect(first).toMatch(/^You are BareAgent, a coding agent/);
  const context = firstUserOf(requests[0]) ?? '';
  expect(context).toMatch(/^# Environment\n/);
  expect(context).toContain(`- Workspace: ${realpathSync(workspace)}`);
  expect(context).toContain('# Workspace at run start\nsrc/\n  a.js\ngreet.js');
  expect(context).toContain(`- Date: ${new Date().toISOString().slice(0, 10)}`);
  expect(context).toContain('network none; workspace writable');
  expect(context).toContain('Permission mode auto');
  expect(context.endsWith('\n\nWork')).toBe(true);
  expect(first).not.toContain(realpathSync(workspace));
  // Read once, at the start: the file written in the first turn is not in the second turn's context.
  expect(systemOf(requests[1])).toBe(first);
  expect(firstUserOf(requests[1])).toBe(context);
  expect(context).not.toContain('created-later');
  const history = await handle.fetchHistory();
  const localActivities = localActivityTypes(history.events);
  expect(localActivities.filter((name) => name === 'readRunEnvironment')).toHaveLength(1);
  // The conversation the run keeps (and shows) is the prompt as given.
  expect((await handle.query(messagesQuery))[0]?.content).toBe('Work');
  // Another workspace, another listing: the same system prompt, which a server's prompt cache keeps with the tools after it.
  const other = await run({}, { 'main.py': 'print(1)' });
  expect(systemOf(other.requests[0])).toBe(first);
  expect(firstUserOf(other.requests[0])).toContain('# Workspace at run start\nmain.py');
});

test('systemPrompt replaces the default (nothing is listed); appendSystemPrompt adds to either', async () => {
  const replaced = await run({ systemPrompt: 'Be brief.' });
  expect(systemOf(replaced.requests[0])).toBe('Be brief.');
  const history = JSON.stringify(await replaced.handle.fetchHistory());
  expect(history).not.toContain('readRunEnvironment');
  const both = await run({ systemPrompt: 'Be brief.', appendSystemPrompt: 'Always say hi.' });
  expect(systemOf(both.requests[0])).toBe('Be brief.\n\nAlways say hi.');
  const appended = await run({ appendSystemPrompt: 'Always say hi.' }, { 'AGENTS.md': 'Use tabs.' });
  const sent = systemOf(appended.requests[0]) ?? '';
  expect(sent).toMatch(/^You are BareAgent/);
  // Order: the default, the operator's addition, then the workspace's AGENTS.md.
  expect(sent).toMatch(/How to work[\s\S]*\n\nAlways say hi\.\n\n# Project instructions \(AGENTS\.md\)\n\nUse tabs\.$/);
});

test('a subagent gets the prompt of its type', async () => {
  h.model.setScenario(
    'sys-sub',
    byPrompt({
      'Look around': [{ toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'Find the entry point', agent_type: 'explore' } }] }, { text: 'Found it.' }],
      'Find the entry point': [{ text: 'greet.js' }],
    }),
  );
  const handle = await h.start({ prompt: 'Look around', model: 'sys-sub', workspace: h.workspace({ 'greet.js': 'x' }), stream: false, appendSystemPrompt: 'Operator note.' });
  await handle.result();
  const child = h.model.requestsFor('sys-sub').find((r) => String(firstUserOf(r)).endsWith('\n\nFind the entry point'));
  const sent = systemOf(child) ?? '';
  expect(sent).toMatch(/^You are a subagent of BareAgent, a read-only explorer/);
  expect(firstUserOf(child)).toContain('workspace read-only');
  expect(firstUserOf(child)).toContain('Permission mode plan');
  expect(sent).not.toContain('edit_file');
  expect(sent).toMatch(/\n\nOperator note\.$/);
});
