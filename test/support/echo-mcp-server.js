// A stdio MCP server of no dependencies, for runs whose sandbox sees only the workspace: one tool,
// `echo`. On start it writes `mcp-started` into its working directory, so a test can tell it ran.
const { writeFileSync } = require('node:fs');
const readline = require('node:readline');

writeFileSync('mcp-started', String(process.pid));
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const answers = {
  initialize: (params) => ({ protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1.0.0' } }),
  'tools/list': () => ({ tools: [{ name: 'echo', description: 'Says the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { readOnlyHint: true } }] }),
  'tools/call': (params) => ({ content: [{ type: 'text', text: `echo: ${params.arguments?.text ?? ''}` }] }),
  ping: () => ({}),
};
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const answer = answers[message.method];
  send(answer ? { id: message.id, result: answer(message.params ?? {}) } : { id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
});
