// A stdio MCP server for tests: each tool answers with the `_meta` of the request that called it.
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');

const server = new McpServer({ name: 'meta-echo', version: '1.0.0' });
const echoMeta = async (extra) => ({ content: [{ type: 'text', text: JSON.stringify(extra._meta ?? null) }] });
server.registerTool('once', { description: 'Changes something (no annotations: at most once).' }, echoMeta);
server.registerTool('again', { description: 'Safe to repeat.', annotations: { idempotentHint: true } }, echoMeta);
void server.connect(new StdioServerTransport());
