import { Harness, openaiWireOnly } from '../support/harness';
import { messagesQuery, stepsQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const TAGGED = 'I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"file_path": "a.txt"}}\n</tool_call>';

test.each([false, true])('tool calls a server left as text are recovered, run, and marked in the step record (stream %s)', async (stream) => {
  const scenario = `text-calls-${stream}`;
  h.model.setScenario(scenario, [
    { text: TAGGED },
    { text: '```json\n{"name": "bash", "arguments": {"command": "cat a.txt"}}\n```' },
    { text: 'Here is an example:\n```json\n{"name": "no_such_tool", "arguments": {}}\n```' },
  ]);
  const handle = await h.start({ prompt: 'Read a.txt', model: scenario, workspace: h.workspace({ 'a.txt': 'hello\n' }), stream, permissionMode: 'auto' });
  const result = await handle.result();
  // A fenced block naming no offered tool is an answer, as written.
  expect(result.text).toContain('no_such_tool');
  const messages = await handle.query(messagesQuery);
  expect(messages[1]).toEqual({
    role: 'assistant',
    content: [
      { type: 'text', text: 'I will read it.' },
      { type: 'tool_use', id: 'call_text_1', name: 'read_file', input: { file_path: 'a.txt' } },
    ],
  });
  expect(messages[2]?.content).toEqual([{ type: 'tool_result', tool_use_id: 'call_text_1', content: '1: hello', is_error: false }]);
  expect((messages[4]?.content as Array<{ content: string }>)[0]?.content).toBe('hello\n');
  const steps = await handle.query(stepsQuery);
  expect(steps.map((s) => s.recovered_tool_calls)).toEqual([1, 1, undefined]);
});

// Chat Completions' own reasoning fields: Anthropic's thinking blocks are test/workflows/anthropic.test.ts's.
for (const stream of [false, true]) {
  openaiWireOnly(`reasoning_content is kept with the assistant message and sent back with its tool call (stream ${stream})`, async () => {
    const scenario = `reasoning-${stream}`;
    h.model.setScenario(scenario, [
      { reasoning: 'The user wants a.txt; read it first.', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
      { reasoning: 'It says hello.', reasoningField: 'reasoning', text: 'It says hello.' },
      { text: 'ok' },
    ]);
    const handle = await h.start({ prompt: 'What does a.txt say?', model: scenario, workspace: h.workspace({ 'a.txt': 'hello\n' }), stream });
    expect(await handle.result()).toMatchObject({ text: 'It says hello.' });
    const second = h.model.requestsFor(scenario)[1]?.body.messages;
    expect(second.find((m: { role: string }) => m.role === 'assistant')).toEqual({
      role: 'assistant',
      reasoning_content: 'The user wants a.txt; read it first.',
      content: null,
      tool_calls: [{ id: 'r1', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"a.txt"}' } }],
    });
    const messages = await handle.query(messagesQuery);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', reasoning: { text: 'It says hello.', provider: 'openai', part: { field: 'reasoning' } } });
  });
}

openaiWireOnly('a model that refuses max_tokens is asked again once with max_completion_tokens, and the worker remembers it', async () => {
  h.model.setScenario('refuses-max-tokens', [
    { refuseMaxTokens: true, toolCalls: [{ id: 'g1', name: 'glob', arguments: { pattern: '*' } }] },
    { refuseMaxTokens: true, text: 'Done.' },
  ]);
  const handle = await h.start({ prompt: 'Go', model: 'refuses-max-tokens', workspace: h.workspace(), stream: false, modelSettings: { maxOutputTokens: 256 } });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  const sent = h.model.requestsFor('refuses-max-tokens').map((r) => [r.body.max_tokens, r.body.max_completion_tokens]);
  expect(sent).toEqual([
    [256, undefined],
    [undefined, 256],
    [undefined, 256],
  ]);
});
