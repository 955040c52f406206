import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { packageVersion } from '../connection/package-version';
import { openStack } from '../cli/local-stack';
import { registerRunTools } from './run-tools';

/**
 * `bareagent mcp`: an MCP server on stdio whose tools start, follow, answer and collect durable
 * runs on the server of TEMPORAL_ADDRESS. Stdout carries the protocol only; everything else goes
 * to stderr. It ends when its client closes stdin; the runs go on.
 */
export async function mcpCommand(): Promise<number> {
  const stack = await openStack({ embedded: false, log: (line) => console.error(line) });
  const server = new McpServer({ name: 'bareagent', version: packageVersion() });
  registerRunTools(server, {
    client: stack.client,
    config: stack.config,
    uiPort: stack.uiPort,
    clientName: () => server.server.getClientVersion()?.name ?? 'an MCP client',
  });
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  try {
    await server.connect(new StdioServerTransport());
    await closed;
    await server.close();
    return 0;
  } finally {
    await stack.close();
  }
}
