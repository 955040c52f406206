import { Harness } from '../support/harness';
import { messagesQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

async function resultsOf(
  calls: Array<{ id: string; name: string; arguments: unknown }>,
  extra: Record<string, unknown> = {},
  files: Record<string, string> = { 'config.toml': '[provider]\nname = "x"\n' },
) {
  const scenario = `tools-${Math.random()}`;
  h.model.setScenario(scenario, [{ text: 'Let me look.', toolCalls: calls }, { text: 'Done.' }]);
  const workspace = h.workspace(files);
  const handle = await h.start({ prompt: 'Work on it', model: scenario, workspace, stream: false, ...extra });
  const result = await handle.result();
  const messages = await handle.query(messagesQuery);
  return { result, messages, workspace, requests: h.model.requestsFor(scenario) };
}

test('the seed message shapes: assistant text + tool_use, then one user message of tool_result blocks', async () => {
  const { result, messages, requests } = await resultsOf([
    { id: 'toolu_1', name: 'read_file', arguments: { file_path: 'config.toml' } },
  ]);
  expect(result).toMatchObject({ text: 'Done.', stopReason: 'final_answer', iterations: 2 });
  expect(messages).toEqual([
    { role: 'user', content: 'Work on it' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { file_path: 'config.toml' } },
      ],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '1: [provider]\n2: name = "x"', is_error: false }],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
  ]);
  // The model saw the result on the wire as a `tool` message.
  expect(requests[1]?.body.messages.slice(-2)).toEqual([
    {
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"config.toml"}' } }],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: '1: [provider]\n2: name = "x"' },
  ]);
  expect(requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(
    expect.arrayContaining(['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'bash']),
  );
});

test('each row of the seed table, in one response, handled in order', async () => {
  const { messages } = await resultsOf(
    [
      { id: 'a', name: 'write_file', arguments: { file_path: '.env', content: 'SECRET=1' } },
      { id: 'b', name: 'launch_rocket', arguments: {} },
      { id: 'c', name: 'read_file', arguments: { file_path: 'missing.txt' } },
      { id: 'd', name: 'glob', arguments: { pattern: '*.toml' } },
      { id: 'e', name: 'bash', arguments: { command: 'true' } },
    ],
    { permissionMode: 'auto', permissionRules: { deny: ['write_file(.env)'] } },
  );
  expect(messages[2]).toEqual({
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'a', content: 'User denied.', is_error: true },
      { type: 'tool_result', tool_use_id: 'b', content: 'Unknown tool: launch_rocket', is_error: true },
      { type: 'tool_result', tool_use_id: 'c', content: 'Error: FileNotFoundError: No such file or directory: missing.txt', is_error: true },
      { type: 'tool_result', tool_use_id: 'd', content: 'config.toml', is_error: false },
      { type: 'tool_result', tool_use_id: 'e', content: '(no output; exit code 0)', is_error: false },
    ],
  });
});

test('arguments the model got wrong become error results naming the problem, and the loop goes on', async () => {
  const { result, messages } = await resultsOf([
    { id: 'j', name: 'read_file', arguments: '{"file_path": "config.toml"' },
    { id: 'k', name: 'read_file', arguments: { path: 'config.toml' } },
    { id: 'l', name: 'bash', arguments: { command: 'ls', timeout: 'soon' } },
  ]);
  expect(result.text).toBe('Done.');
  const [j, k, l] = (messages[2]?.content ?? []) as Array<{ content: string; is_error: boolean }>;
  expect(j?.content).toMatch(/^Error: InvalidArguments: read_file: invalid JSON/);
  expect(k?.content).toContain('Error: InvalidArguments: read_file: file_path:');
  expect(k?.content).toContain('path: unknown field');
  expect(l?.content).toMatch(/^Error: InvalidArguments: bash: timeout:/);
  expect([j?.is_error, k?.is_error, l?.is_error]).toEqual([true, true, true]);
  // The malformed call is kept as the model sent it, so it sees its own mistake.
  expect((messages[1]?.content as unknown[])[1]).toEqual({
    type: 'tool_use',
    id: 'j',
    name: 'read_file',
    input: '{"file_path": "config.toml"',
  });
});

test('an edit_file miss tells whether the run read the file: not before read_file, no longer after it', async () => {
  const { messages } = await resultsOf(
    [
      { id: 'e1', name: 'edit_file', arguments: { file_path: 'config.toml', old_text: 'name = "y"', new_text: 'name = "z"' } },
      { id: 'r1', name: 'read_file', arguments: { file_path: './config.toml' } },
      { id: 'e2', name: 'edit_file', arguments: { file_path: 'config.toml', old_text: 'name = "y"', new_text: 'name = "z"' } },
    ],
    { permissionMode: 'auto' },
  );
  const results = messages[2]?.content as Array<{ content: string; is_error: boolean }>;
  expect(results[0]).toEqual({
    type: 'tool_result',
    tool_use_id: 'e1',
    is_error: true,
    content: [
      'Error: ToolError: old_text not found in file config.toml.',
      'You had not read config.toml in this run: it is shown below. Copy old_text from it exactly.',
      'The closest lines are 2-2.',
      'Line 2 of the file is "name = \\"x\\"" where old_text has "name = \\"y\\"".',
      'config.toml, 3 lines, numbered as read_file numbers them (the "12: " prefixes are not part of the file):',
      '1: [provider]\n2: name = "x"\n3: ',
    ].join('\n'),
  });
  expect(results[2]?.content).toMatch(/^Error: ToolError: old_text not found in file config\.toml\.\nThe closest lines are 2-2\.\nLine 2 of the file is .*\nconfig\.toml, 3 lines/);
});

test('a file attached to the prompt counts as read; a miss on lines the run\'s own edit changed says so; an edit shows the file as it is now', async () => {
  const scenario = `tools-${Math.random()}`;
  h.model.setScenario(scenario, [
    { text: 'Fixing.', toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { file_path: 'config.toml', old_text: 'name = "x"', new_text: 'name = "y"' } }] },
    // The model's picture is still the file before its edit.
    { text: 'Again.', toolCalls: [{ id: 'e2', name: 'edit_file', arguments: { file_path: 'config.toml', old_text: 'name = "x"', new_text: 'name = "z"' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ 'config.toml': '[provider]\nname = "x"\n' });
  const handle = await h.start({ prompt: 'Set the name in config.toml', model: scenario, workspace, stream: false, permissionMode: 'auto', attachMentionedPaths: 'plain' });
  await handle.result();
  const messages = await handle.query(messagesQuery);
  const results = messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'tool_result') as Array<{ tool_use_id: string; content: string }>;
  expect(results.find((r) => r.tool_use_id === 'e1')?.content).toBe(
    'Edited config.toml\nconfig.toml now, 2 lines, numbered as read_file numbers them (the "12: " prefixes are not part of the file):\n1: [provider]\n2: name = "y"',
  );
  const miss = results.find((r) => r.tool_use_id === 'e2')?.content ?? '';
  expect(miss).toMatch(/^Error: ToolError: old_text not found in file config\.toml\.\nold_text was in the file before your own earlier edit_file of it in this run, which changed those lines: edit the file as it is now\.\n/);
  // Attached to the prompt: read, so the miss does not say it was guessed.
  expect(miss).not.toContain('had not read');
});

test('before the repeated-failure stop, an edit_file that keeps missing gets the one call that would work: for a small file, write_file of the whole file', async () => {
  const scenario = `tools-${Math.random()}`;
  const miss = { file_path: 'config.toml', old_text: 'name = "q"', new_text: 'name = "z"' };
  h.model.setScenario(scenario, [
    ...[1, 2, 3].map((n) => ({ text: 'Editing.', toolCalls: [{ id: `e${n}`, name: 'edit_file', arguments: miss }] })),
    { text: 'Rewriting.', toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: 'config.toml', content: '[provider]\nname = "z"\n' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ 'config.toml': '[provider]\nname = "x"\n' });
  const handle = await h.start({ prompt: 'Set the name', model: scenario, workspace, stream: false, permissionMode: 'auto' });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  const messages = await handle.query(messagesQuery);
  const nudges = messages.flatMap((m) => (m.role !== 'user' || typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
  expect(nudges).toEqual([
    'The same call has failed the same way several times; change the approach before trying it again',
    'Stop editing config.toml piece by piece: the result above shows it as it is now. Call write_file with file_path "config.toml" and the whole new content of the file (without the "12: " line prefixes).',
  ]);
  // The nudge follows the third miss, whose result shows the file whole.
  const third = messages.findIndex((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'e3'));
  expect((messages[third]?.content as Array<{ type: string; content?: string }>)[0]?.content).toContain('config.toml, 3 lines, numbered as read_file numbers them');
});

test("a write of the acceptance check's test file that keeps failing gets a nudge to leave it, not to copy old_text again", async () => {
  const scenario = `tools-${Math.random()}`;
  const same = { file_path: 'test.js', old_text: "assert.ok(f());", new_text: "assert.ok(f());" };
  h.model.setScenario(scenario, [...[1, 2, 3].map((n) => ({ toolCalls: [{ id: `r${n}`, name: 'edit_file', arguments: same }] })), { text: 'Done.' }]);
  const workspace = h.workspace({ 'test.js': "const assert = require('node:assert');\nassert.ok(f());\n" });
  const handle = await h.start({ prompt: 'Make the test pass', model: scenario, workspace, stream: false, permissionMode: 'bypass', acceptance: { command: 'node test.js || true' } });
  await handle.result();
  const messages = await handle.query(messagesQuery);
  const nudges = messages.flatMap((m) => (m.role !== 'user' || typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
  expect(nudges).toEqual([
    'The same call has failed the same way several times; change the approach before trying it again',
    'test.js is read-only to this run, and every write of it fails: leave it as it is. Change the code it checks, run the check, then give your answer.',
  ]);
});

test('a round that wrote a file, in a run with an acceptance check, is told to run it; a round that ran a command, or a failed write, is not', async () => {
  const scenario = `tools-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: 'hello.txt', content: 'hi there' } }] },
    { toolCalls: [{ id: 'w2', name: 'write_file', arguments: { file_path: 'hello.txt', content: 'hi there' } }, { id: 'b1', name: 'bash', arguments: { command: 'cat hello.txt' } }] },
    { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { file_path: 'hello.txt', old_text: 'absent', new_text: 'x' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({});
  const handle = await h.start({ prompt: 'Create hello.txt', model: scenario, workspace, stream: false, permissionMode: 'bypass', acceptance: { command: 'test -f hello.txt' } });
  expect(await handle.result()).toMatchObject({ stopReason: 'final_answer' });
  const messages = await handle.query(messagesQuery);
  const notesAfter = (id: string) => {
    const round = messages.find((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === id));
    return (round?.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text);
  };
  expect(notesAfter('w1')).toEqual(["If that change finishes the task, run this run's acceptance check now (call bash with `test -f hello.txt`) and give your final answer once it passes."]);
  expect(notesAfter('b1')).toEqual([]);
  expect(notesAfter('e1')).toEqual([]);
  // What the model was sent: the note after the write's result, as a user message.
  const sent = JSON.stringify(h.model.requestsFor(scenario)[1]?.body.messages);
  expect(sent).toContain('call bash with `test -f hello.txt`');
});

test('a rename left half done names the lines still using the old name, and the round is not told to run the check yet; not where a grep would not run unasked', async () => {
  const files = { 'src/user.js': 'function getUserName(u) {}\nmodule.exports = { getUserName };\n', 'src/app.js': "const { getUserName } = require('./user');\n" };
  const rename = { file_path: 'src/user.js', content: 'function fetchUserName(u) {}\nmodule.exports = { fetchUserName };\n' };
  const run = async (extra: object) => {
    const scenario = `tools-${Math.random()}`;
    h.model.setScenario(scenario, [{ toolCalls: [{ id: 'w1', name: 'write_file', arguments: rename }] }, { text: 'Done.' }]);
    const handle = await h.start({ prompt: 'Rename getUserName to fetchUserName', model: scenario, workspace: h.workspace(files), stream: false, acceptance: { command: 'true' }, ...extra });
    await handle.result();
    const messages = await handle.query(messagesQuery);
    const round = messages.find((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'w1'));
    const blocks = round?.content as Array<{ type: string; text?: string; content?: string }>;
    return { result: blocks[0]?.content ?? '', notes: blocks.filter((b) => b.type === 'text').map((b) => b.text) };
  };
  const searched = await run({ permissionMode: 'bypass' });
  expect(searched.result).toContain("\n\nStill to do: these lines still use getUserName, which this change took away; change them too, or put it back:\nsrc/app.js:1: const { getUserName } = require('./user');");
  expect(searched.notes).toEqual([]);
  // A deny rule on grep: the write's result searches nothing, and the round gets the usual note.
  const denied = await run({ permissionMode: 'bypass', permissionRules: { deny: ['grep'] } });
  expect(denied.result).not.toContain('Still to do');
  expect(denied.result).toContain('no longer exports getUserName');
  expect(denied.notes).toEqual(["If that change finishes the task, run this run's acceptance check now (call bash with `true`) and give your final answer once it passes."]);
});

test('a round of reads that brings nothing new is told to answer if it can; a first read is not', async () => {
  const scenario = `tools-${Math.random()}`;
  const glob = { pattern: '**/*.js' };
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'g1', name: 'glob', arguments: glob }] },
    { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'a.js' } }] },
    { toolCalls: [{ id: 'g2', name: 'glob', arguments: glob }] },
    { text: '2' },
  ]);
  const workspace = h.workspace({ 'a.js': 'module.exports = 1;\n', 'b.js': 'module.exports = 2;\n' });
  const handle = await h.start({ prompt: 'How many .js files are there?', model: scenario, workspace, stream: false, permissionMode: 'plan' });
  expect(await handle.result()).toMatchObject({ text: '2' });
  // Without the final_answer tool (the default), the answer is the reply's text.
  const messages = await handle.query(messagesQuery);
  const notesAfter = (id: string) => {
    const round = messages.find((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === id));
    return (round?.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text);
  };
  expect(notesAfter('g1')).toEqual([]);
  expect(notesAfter('r1')).toEqual([]);
  expect(notesAfter('g2')).toEqual(['These results are the same as earlier calls of this run returned: nothing new. If what you have answers the task, give your answer now; if not, try something else.']);
  // With the final_answer tool (`finalAnswer: 'tool'`), the note names it.
  const again = `tools-${Math.random()}`;
  h.model.setScenario(again, [
    { toolCalls: [{ id: 'g1', name: 'glob', arguments: glob }] },
    { toolCalls: [{ id: 'g2', name: 'glob', arguments: glob }] },
    { toolCalls: [{ id: 'f', name: 'final_answer', arguments: { answer: '2' } }] },
  ]);
  const tooled = await h.start({ prompt: 'How many .js files are there?', model: again, workspace, stream: false, permissionMode: 'plan', finalAnswer: 'tool' });
  expect(await tooled.result()).toMatchObject({ text: '2' });
  expect(JSON.stringify(h.model.requestsFor(again)[2]?.body.messages)).toContain('If what you have answers the task, call final_answer now');
});
