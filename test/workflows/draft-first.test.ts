import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decidePermissionUpdate, messagesQuery } from '../../src/common/contract';
import { fileAnswerRequest } from '../../src/loop/code-answer';
import { draftPlan } from '../../src/loop/draft';
import { Harness } from '../support/harness';
import { pendingRequest } from '../support/wait-for';

/** `draftFirst` (the `small-local` profile's): the first turn asks for the finished file as the model alone would be asked, and writes its code through write_file. */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const STUB = "/** Twice x. @example double(2) // 4 */\nfunction double(x) {\n  throw new Error('not implemented');\n}\n\nmodule.exports = { double };\n";
const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('./solution.js').double(2), 4);\nconsole.log('ok');\n";
const PROMPT = 'Complete the function double in solution.js. Its examples run with node test.js.';
const DRAFT = 'Here it is:\n```javascript\nfunction double(x) {\n  return x * 2;\n}\n```\ntest.js:\n```javascript\nconsole.log(1);\n```\n';
const answer = { toolCalls: [{ id: 'f1', name: 'final_answer', arguments: { answer: 'Done.' } }] };
const toolNames = (body: { tools?: Array<{ function: { name: string } }> }) => (body.tools ?? []).map((t) => t.function.name);

test('the first request is the model-alone request (the test shown, never written), its code is written into the file keeping the rest, and the loop goes on with tools', async () => {
  h.model.setScenario('draft-ok', [{ text: DRAFT }, answer]);
  const workspace = h.workspace({ 'solution.js': STUB, 'test.js': TEST });
  const handle = await h.start({ prompt: PROMPT, model: 'draft-ok', workspace, profile: 'small-local', permissionMode: 'bypass', acceptance: { command: 'node test.js' } });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  const [draft, next] = h.model.requestsFor('draft-ok');
  // Exactly what `bareagent eval --baseline model-alone` sends: one user message, no tools, no system prompt.
  expect(draft?.body.messages).toEqual([{ role: 'user', content: fileAnswerRequest(PROMPT, [{ path: 'solution.js', text: STUB }, { path: 'test.js', text: TEST }]) }]);
  expect(draft?.body.tools).toBeUndefined();
  expect(toolNames(next!.body)).toEqual(expect.arrayContaining(['write_file', 'bash', 'final_answer']));
  const written = readFileSync(path.join(workspace, 'solution.js'), 'utf8');
  expect(written).toBe("/** Twice x. @example double(2) // 4 */\nfunction double(x) {\n  return x * 2;\n}\n\nmodule.exports = { double };\n");
  // The conversation the loop goes on with: the prompt with its attachment, the draft's write (not its
  // text, whose echo of test.js a small model took for work to do), the write's result.
  const messages = await handle.query(messagesQuery);
  expect(messages[1]?.content).toEqual([
    { type: 'tool_use', id: 'draft-1', name: 'write_file', input: { file_path: 'solution.js', content: written } },
  ]);
  expect(JSON.stringify(messages[2]?.content)).toContain('Wrote ');
});

test('in default mode the draft write asks like any write, its whole content shown', async () => {
  h.model.setScenario('draft-ask', [{ text: DRAFT }, answer]);
  const workspace = h.workspace({ 'solution.js': STUB });
  const handle = await h.start({ prompt: PROMPT, model: 'draft-ask', workspace, profile: 'small-local', permissionMode: 'default' });
  const pending = await pendingRequest(handle);
  expect(pending).toMatchObject({ tool: 'write_file', toolCallId: 'draft-1', input: { file_path: 'solution.js', content: expect.stringContaining('return x * 2;') } });
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: pending.requestId, decision: 'deny' }] });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  expect(readFileSync(path.join(workspace, 'solution.js'), 'utf8')).toBe(STUB);
});

test('a draft with no code for the file is an ordinary turn; a prompt that attaches no file, or a run without the setting, drafts nothing', async () => {
  h.model.setScenario('draft-none', [{ text: 'I cannot.' }, answer]);
  const first = await h.start({ prompt: PROMPT, model: 'draft-none', workspace: h.workspace({ 'solution.js': STUB }), profile: 'small-local', permissionMode: 'bypass' });
  expect(await first.result()).toMatchObject({ text: 'Done.' });
  const [draft, turn] = h.model.requestsFor('draft-none');
  expect(draft?.body.tools).toBeUndefined();
  expect(toolNames(turn!.body)).toContain('final_answer');

  h.model.setScenario('draft-no-file', [answer]);
  await (await h.start({ prompt: 'What is 2 + 2?', model: 'draft-no-file', workspace: h.workspace({}), profile: 'small-local' })).result();
  expect(toolNames(h.model.requestsFor('draft-no-file')[0]!.body)).toContain('final_answer');

  h.model.setScenario('draft-off', [answer]);
  await (await h.start({ prompt: PROMPT, model: 'draft-off', workspace: h.workspace({ 'solution.js': STUB }), profile: 'small-local', draftFirst: false })).result();
  expect(toolNames(h.model.requestsFor('draft-off')[0]!.body)).toContain('final_answer');
});

test('the draft target is the one attached file of code that is not a test; with two, or for a question, nothing is drafted', () => {
  const first = (paths: string[]) => ({ messages: [{ role: 'user' }], attachments: paths.map((p) => ({ path: p, kind: 'file' as const })) });
  const tools = new Set(['write_file']);
  expect(draftPlan(true, 'Complete f.', first(['solution.js', 'test.js']), tools, [])).toEqual({ target: 'solution.js', shown: ['solution.js', 'test.js'] });
  expect(draftPlan(true, 'Complete f.', first(['a.py', 'tests/check.py', 'notes.md']), tools, [])).toEqual({ target: 'a.py', shown: ['a.py', 'tests/check.py', 'notes.md'] });
  expect(draftPlan(true, 'Complete f.', first(['a.js', 'b.js']), tools, [])).toBeUndefined();
  expect(draftPlan(true, 'Complete f.', first(['a.js', 'run.js']), tools, ['run.js'])).toEqual({ target: 'a.js', shown: ['a.js', 'run.js'] });
  expect(draftPlan(true, 'Complete f.', first(['a.js']), new Set(['read_file']), [])).toBeUndefined();
  // A question is answered, not drafted: no file is rewritten for it.
  const questions = ['What does a.js do?', 'explain a.js', 'How long is a.js', 'On which port does a.js listen? Answer with the number only.', 'In a.js, the port (which one?) is read where?'];
  for (const question of questions) expect(draftPlan(true, question, first(['a.js']), tools, [])).toBeUndefined();
  // A conditional expression in an order is not a question.
  expect(draftPlan(true, 'Replace `x ? y : z` in a.js with an if.', first(['a.js']), tools, [])).toEqual({ target: 'a.js', shown: ['a.js'] });
  expect(draftPlan(true, 'Complete f.', { ...first(['a.js']), attachments: [{ path: 'a.js', kind: 'file', truncated: true }] }, tools, [])).toBeUndefined();
});
