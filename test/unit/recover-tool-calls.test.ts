import { recoverToolCalls } from '../../src/activities/model/recover-tool-calls';

const known = new Set(['read_file', 'bash']);

test('<tool_call> blocks naming offered tools become calls, in order, and leave the rest of the text', () => {
  const text = 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"file_path": "a.js"}}\n</tool_call>\n<tool_call>{"name":"bash","arguments":"{\\"command\\":\\"node test.js\\"}"}</tool_call>';
  expect(recoverToolCalls(text, known)).toEqual({
    text: 'Let me look.',
    calls: [
      { id: 'call_text_1', name: 'read_file', input: { file_path: 'a.js' } },
      { id: 'call_text_2', name: 'bash', input: { command: 'node test.js' } },
    ],
  });
});

test('a fenced JSON block naming a tool is a call; one naming no offered tool stays text', () => {
  expect(recoverToolCalls('```json\n{"name": "bash", "parameters": {"command": "ls"}}\n```', known)).toEqual({
    text: '',
    calls: [{ id: 'call_text_1', name: 'bash', input: { command: 'ls' } }],
  });
  expect(recoverToolCalls('```json\n{"name": "rm_rf", "arguments": {}}\n```', known)).toBeUndefined();
  expect(recoverToolCalls('Config:\n```json\n{"port": 8080}\n```', known)).toBeUndefined();
});

test('anything unsure stays text: a tagged block that does not parse, arguments that are not an object, no tools offered', () => {
  expect(recoverToolCalls('<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call><tool_call>{broken</tool_call>', known)).toBeUndefined();
  expect(recoverToolCalls('<tool_call>{"name": "bash", "arguments": [1]}</tool_call>', known)).toBeUndefined();
  expect(recoverToolCalls('<tool_call>{"name": "bash", "arguments": {}}</tool_call>', new Set())).toBeUndefined();
  expect(recoverToolCalls('The answer is 42.', known)).toBeUndefined();
});
