import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { messagesQuery, statusQuery, stepsQuery, userMessageSignal } from '../../src/common/contract';
import type { AgentRunResult } from '../../src/common/wire';
import { tracingSinks } from '../../src/worker/tracing-sinks';
import { collectEvents } from '../support/events';
import { Harness } from '../support/harness';
import { readTestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { localActivityTypes, scheduledActivityTypes } from '../support/history-activities';

/**
 * Local models, by effect through the scripted model server: the final answer as a tool the model
 * cannot skip, the files a message mentions attached to it (once, in history), and the
 * `small-local` profile.
 */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

type Body = { messages: Array<{ role: string; content: unknown }>; tools?: Array<{ function: { name: string } }>; tool_choice?: unknown; temperature?: number; max_tokens?: number };
const firstUser = (body: Body) => body.messages.find((m) => m.role === 'user')?.content as string;
const toolNames = (body: Body) => (body.tools ?? []).map((t) => t.function.name);
/** How many times the history ran this activity, as a local activity (a marker) or an ordinary one. */
const scheduled = (history: Awaited<ReturnType<Awaited<ReturnType<Harness['start']>>['fetchHistory']>>, type: string) =>
  [...scheduledActivityTypes(history.events), ...localActivityTypes(history.events)].filter((name) => name === type).length;

test('finalAnswer=tool: every turn asks for a tool call, a text reply is a note, and only final_answer ends the run', async () => {
  h.model.setScenario('fa-tool', [
    { text: 'Here is the fixed file:\n```js\nmodule.exports = 2;\n```' },
    { toolCalls: [{ id: 'f1', name: 'final_answer', arguments: { answer: 'Fixed: it returns 2.', changes: 'a.js', checks: 'node -e ran' } }] },
  ]);
  const handle = await h.start({ prompt: 'Fix a.js', model: 'fa-tool', workspace: h.workspace({ 'a.js': 'module.exports = 1;\n' }), permissionMode: 'auto', stream: false, finalAnswer: 'tool' });
  const result = (await handle.result()) as AgentRunResult;
  const requests = h.model.requestsFor('fa-tool');
  expect(requests).toHaveLength(2);
  for (const request of requests) {
    expect(request.body.tool_choice).toBe('required');
    expect(toolNames(request.body)).toContain('final_answer');
  }
  // The text reply was not the answer: the model was told so and called final_answer next.
  expect(JSON.stringify(requests[1]?.body.messages)).toContain('kept as a note, not taken as your answer');
  expect(result.text).toBe('Fixed: it returns 2.\n\nChanged: a.js\n\nChecked: node -e ran');
  expect(result.finalAnswer).toEqual({ answer: 'Fixed: it returns 2.', changes: 'a.js', checks: 'node -e ran' });
  expect(result.notes).toEqual(['Here is the fixed file:\n```js\nmodule.exports = 2;\n```']);
  expect((await handle.query(stepsQuery)).map((s) => s.reason)).toEqual(['text_reply', 'stop:final_answer']);
  // The default system prompt says how this run ends.
  const system = requests[0]?.body.messages.find((m: { role: string }) => m.role === 'system')?.content as string;
  expect(system).toContain('call final_answer with your answer');
});

test('finalAnswer=text (the default) sends no tool_choice and no final_answer tool', async () => {
  h.model.setScenario('fa-text', [{ text: 'Done.' }]);
  const result = await h.execute({ prompt: 'Say done', model: 'fa-text', workspace: h.workspace(), stream: false });
  expect(result.text).toBe('Done.');
  const [request] = h.model.requestsFor('fa-text');
  expect(request?.body.tool_choice).toBeUndefined();
  expect(toolNames(request?.body)).not.toContain('final_answer');
});

test('the acceptance check runs on the final_answer call; a call beside other calls is not taken', async () => {
  h.model.setScenario('fa-accept', [
    { toolCalls: [{ id: 'f1', name: 'final_answer', arguments: { answer: 'done' } }] },
    {
      toolCalls: [
        { id: 'w1', name: 'write_file', arguments: { file_path: 'done.txt', content: 'yes' } },
        { id: 'f2', name: 'final_answer', arguments: { answer: 'done too early' } },
      ],
    },
    { toolCalls: [{ id: 'f3', name: 'final_answer', arguments: { answer: 'done, checked' } }] },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'Create done.txt', model: 'fa-accept', workspace, permissionMode: 'auto', stream: false, finalAnswer: 'tool', acceptance: { command: 'test -f done.txt' } });
  const result = (await handle.result()) as AgentRunResult;
  expect(result.text).toBe('done, checked');
  const requests = h.model.requestsFor('fa-accept');
  expect(JSON.stringify(requests[1]?.body.messages)).toContain('The acceptance check `test -f done.txt` failed');
  // The final_answer beside write_file got its own result in the same results message as the write's.
  const results = requests[2]?.body.messages.filter((m: { role: string }) => m.role === 'tool') ?? [];
  expect(JSON.stringify(results)).toContain('call final_answer alone');
  expect((await handle.query(stepsQuery)).map((s) => s.reason)).toEqual(['acceptance_failed', 'next_turn', 'stop:final_answer']);
});

test('@path attaches the file numbered and @dir/ a listing, read once: the history replays with the files gone', async () => {
  h.model.setScenario('at-path', [{ text: 'It returns 1.' }]);
  const workspace = h.workspace({ 'src/a.js': 'const x = 1;\nmodule.exports = x;\n', 'src/b.js': '', 'secret.txt': 'hunter2\n' });
  const handle = await h.start({
    prompt: 'What does @src/a.js return? See @src/ and @secret.txt and @missing.js.',
    model: 'at-path',
    workspace,
    stream: false,
    permissionRules: { deny: ['read_file(secret.txt)'] },
  });
  const events = collectEvents(h.client, handle.workflowId);
  await handle.result();
  const sent = firstUser(h.model.requestsFor('at-path')[0]!.body);
  expect(sent).toContain('[Attached src/a.js (numbered as read_file shows it, 38 B)]\n1: const x = 1;\n2: module.exports = x;\n[End of src/a.js]');
  expect(sent).toContain('[Attached src/ (directory listing');
  expect(sent).toMatch(/a\.js\nb\.js\n\[End of src\/\]/);
  // A deny rule holds as for read_file; a missing explicit mention is said, not silently dropped.
  expect(sent).not.toContain('hunter2');
  expect(sent).toMatch(/- secret\.txt: not attached: the run's rules deny reading it/);
  expect(sent).toMatch(/- missing\.js: .*(not found|No such file)/i);
  const attached = (await events).filter((e) => e.type === 'attachments');
  expect(attached).toHaveLength(1);
  expect(attached[0]).toMatchObject({ files: [{ path: 'src/a.js', kind: 'file', chars: 38 }, { path: 'src/', kind: 'listing' }] });
  const history = await handle.fetchHistory();
  expect(scheduled(history, 'attachMentions')).toBe(1);
  rmSync(path.join(workspace, 'src'), { recursive: true });
  await Worker.runReplayHistory({ workflowBundle: { codePath: readTestEnv().bundlePath }, sinks: tracingSinks(undefined) }, history, handle.workflowId);
});

test('a follow-up mention attaches too; a prompt without mentions runs no attach activity', async () => {
  h.model.setScenario('at-follow', [{ text: 'Hello.' }, { text: 'It says hi.' }]);
  const handle = await h.start({ prompt: 'Say hello', model: 'at-follow', workspace: h.workspace({ 'notes.md': 'hi\n' }), stream: false, idleTimeout: '1m' });
  await waitFor(async () => ((await handle.query(statusQuery)).phase === 'idle' ? true : undefined), 'the run to idle');
  expect(scheduled(await handle.fetchHistory(), 'attachMentions')).toBe(0);
  await handle.signal(userMessageSignal, { text: 'What is in @notes.md?' });
  await waitFor(async () => (h.model.requestsFor('at-follow').length === 2 ? true : undefined), 'the second turn');
  await handle.cancel();
  await handle.result().catch(() => undefined);
  const messages = await handle.query(messagesQuery);
  expect(JSON.stringify(messages)).toContain('[Attached notes.md (numbered as read_file shows it, 5 B)]\\n1: hi\\n[End of notes.md]');
});

test('profile small-local: tool_choice required, its sampling settings, and plain paths attached; the input wins over it', async () => {
  h.model.setScenario('small', [{ toolCalls: [{ id: 'f1', name: 'final_answer', arguments: { answer: 'two lines' } }] }]);
  const workspace = h.workspace({ 'lib/util.py': 'def f():\n    return 1\n' });
  const result = await h.execute({ prompt: 'How long is lib/util.py?', model: 'small', workspace, stream: false, profile: 'small-local', modelSettings: { temperature: 0.5 } });
  expect(result.text).toBe('two lines');
  const body = h.model.requestsFor('small')[0]!.body as Body;
  expect(body.tool_choice).toBe('required');
  expect(body.temperature).toBe(0.5);
  expect(body.max_tokens).toBe(1024);
  expect(firstUser(body)).toContain('[Attached lib/util.py (numbered as read_file shows it');
  expect(firstUser(body)).toContain('2:     return 1');
  // No subagent or background job for the small model; the rest of the tools as before.
  expect(toolNames(body)).toEqual(expect.arrayContaining(['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'bash', 'final_answer']));
  expect(toolNames(body)).not.toContain('subagent');
  expect(toolNames(body)).not.toContain('background_run');
});

test('a tool the input disallows is neither offered nor run; small-local given disallowedTools: [] offers them all', async () => {
  h.model.setScenario('no-jobs', [{ toolCalls: [{ id: 'b1', name: 'background_run', arguments: { command: 'touch ran.txt' } }] }, { text: 'done' }]);
  const workspace = h.workspace({});
  await h.execute({ prompt: 'Start it', model: 'no-jobs', workspace, stream: false, permissionMode: 'bypass', disallowedTools: ['background_run'] });
  const [first, second] = h.model.requestsFor('no-jobs').map((r) => r.body as Body);
  expect(toolNames(first!)).not.toContain('background_run');
  expect(toolNames(first!)).toContain('subagent');
  expect((second!.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'tool')?.content).toBe('Unknown tool: background_run');
  expect(existsSync(path.join(workspace, 'ran.txt'))).toBe(false);
  h.model.setScenario('all-tools', [{ text: 'ok' }]);
  await h.execute({ prompt: 'x', model: 'all-tools', workspace, stream: false, profile: 'small-local', finalAnswer: 'text', disallowedTools: [] });
  expect(toolNames(h.model.requestsFor('all-tools')[0]!.body as Body)).toEqual(expect.arrayContaining(['subagent', 'background_run']));
});

test('a run started before disallowedTools replays as it ran: its background job still runs on replay', async () => {
  h.model.setScenario('old-jobs', [{ toolCalls: [{ id: 'b1', name: 'background_run', arguments: { command: 'true' } }] }, ...Array.from({ length: 8 }, () => ({ text: 'done' }))]);
  const handle = await h.start({ prompt: 'Start it', model: 'old-jobs', workspace: h.workspace({}), stream: false, permissionMode: 'bypass' });
  await handle.result();
  const history = await handle.fetchHistory();
  // As a 0.3.0 small-local run's input now parses: the profile adds disallowedTools, and the history has no marker.
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
  const input = JSON.parse(Buffer.from(started.data!).toString('utf8')) as Record<string, unknown>;
  started.data = Buffer.from(JSON.stringify({ ...input, disallowedTools: ['background_run'] }), 'utf8');
  await Worker.runReplayHistory({ workflowBundle: { codePath: readTestEnv().bundlePath }, sinks: tracingSinks(undefined) }, history, handle.workflowId);
});

test('an unknown profile fails the run at once, naming the field and the known profiles', async () => {
  const failure = await h.execute({ prompt: 'x', profile: 'tiny', workspace: h.workspace() }).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(String((failure as WorkflowFailedError).cause?.message)).toContain('profile: unknown profile "tiny"; known profiles: small-local');
});

test('a hostile workspace: a symlink out of it, a FIFO and a huge file attach nothing they should not, at once', async () => {
  h.model.setScenario('hostile', [{ text: 'ok' }]);
  const outside = h.workspace({ 'key.txt': 'OUTSIDE-SECRET\n' });
  const workspace = h.workspace({ 'huge.txt': `${'line of text\n'.repeat(200_000)}` });
  const { symlinkSync } = await import('node:fs');
  const { execFileSync } = await import('node:child_process');
  symlinkSync(path.join(outside, 'key.txt'), path.join(workspace, 'link.txt'));
  execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
  writeFileSync(path.join(workspace, 'bin.dat'), Buffer.from([0, 1, 2, 3]));
  const started = Date.now();
  await h.execute({ prompt: 'Look at @link.txt @pipe @huge.txt @bin.dat', model: 'hostile', workspace, stream: false, attachments: { maxFileChars: 2000 } });
  expect(Date.now() - started).toBeLessThan(30_000); // the FIFO did not hold the worker
  const sent = firstUser(h.model.requestsFor('hostile')[0]!.body);
  expect(sent).not.toContain('OUTSIDE-SECRET');
  expect(sent).toMatch(/- link\.txt: .*outside the workspace/);
  expect(sent).toMatch(/- pipe: .*(FIFO|not a regular file)/i);
  expect(sent).toMatch(/- bin\.dat: Binary file, not shown/);
  const huge = /\[Attached huge\.txt \(numbered as read_file shows it, ([\d.]+) kB, cut\)\]/.exec(sent);
  expect(Number(huge?.[1])).toBeLessThanOrEqual(2);
  expect(sent).toMatch(/\[attachment cut after line \d+: read huge\.txt with read_file offset=\d+ for the rest\]/);
});

test('profile small-local attaches the local files an attached file imports, never one the rules deny, a FIFO or a link out of the workspace', async () => {
  h.model.setScenario('imports', [{ toolCalls: [{ id: 'f1', name: 'final_answer', arguments: { answer: '8081' } }] }]);
  const outside = h.workspace({ 'key.js': 'OUTSIDE-SECRET\n' });
  const workspace = h.workspace({
    'src/server.js':
      "const { PORT } = require('./settings');\nconst key = require('./secret');\nconst out = require('./out');\nconst up = require('../../../../etc/passwd');\nrequire('./pipe.js');\nrequire('node:http').createServer().listen(PORT);\n",
    'src/settings.js': 'module.exports = { PORT: 8081 };\n',
    'src/secret.js': 'module.exports = "DENIED-SECRET";\n',
  });
  const { symlinkSync } = await import('node:fs');
  const { execFileSync } = await import('node:child_process');
  symlinkSync(path.join(outside, 'key.js'), path.join(workspace, 'src/out.js'));
  execFileSync('mkfifo', [path.join(workspace, 'src/pipe.js')]);
  const handle = await h.start({
    prompt: 'On which port does src/server.js listen?',
    model: 'imports',
    workspace,
    stream: false,
    profile: 'small-local',
    permissionMode: 'bypass',
    permissionRules: { deny: ['read_file(src/secret.js)'] },
  });
  const events = collectEvents(h.client, handle.workflowId);
  await handle.result();
  const sent = firstUser(h.model.requestsFor('imports')[0]!.body);
  expect(sent).toContain('[Attached src/settings.js (numbered as read_file shows it, 35 B)]\n1: module.exports = { PORT: 8081 };\n[End of src/settings.js]');
  for (const secret of ['DENIED-SECRET', 'OUTSIDE-SECRET', 'root:']) expect(sent).not.toContain(secret);
  expect(sent).not.toContain('[Mentioned but not attached]');
  expect((await events).filter((e) => e.type === 'attachments')[0]).toMatchObject({ files: [{ path: 'src/server.js' }, { path: 'src/settings.js' }] });
  // Once, in history: a replay reads nothing.
  const history = await handle.fetchHistory();
  expect(scheduled(history, 'attachMentions')).toBe(1);
  rmSync(path.join(workspace, 'src'), { recursive: true });
  await Worker.runReplayHistory({ workflowBundle: { codePath: readTestEnv().bundlePath }, sinks: tracingSinks(undefined) }, history, handle.workflowId);
});
