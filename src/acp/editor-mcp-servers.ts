import { McpServerName, McpServers } from '../common/mcp';
import { UsageError } from '../runs/usage-error';
import type { Acp } from './acp-sdk';

/**
 * The MCP servers an editor offers at `session/new`, as the run's `clientMcpServers`: stdio only
 * (what `initialize` advertises). They are not vouched for: the run asks its run-start question
 * before any of them starts, and runs them in its sandbox, as it does the workspace's own.
 */
export function editorMcpServers(offered: Acp.McpServer[]): McpServers | undefined {
  if (offered.length === 0) return undefined;
  const servers: Record<string, unknown> = {};
  for (const server of offered) {
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      throw new UsageError(`MCP server ${JSON.stringify(server.name)}: bareagent acp takes stdio MCP servers only (initialize advertises no http or sse); add it to the workspace's .bareagent/mcp.json instead.`);
    }
    if (!McpServerName.safeParse(server.name).success) throw new UsageError(`MCP server ${JSON.stringify(server.name)}: its name must be 1-32 letters, digits, "_" or "-" (it becomes part of its tools' names).`);
    if (server.name in servers) throw new UsageError(`MCP server ${JSON.stringify(server.name)} is offered twice.`);
    const stdio = server as Acp.McpServerStdio;
    servers[stdio.name] = { command: stdio.command, args: stdio.args, env: Object.fromEntries(stdio.env.map((variable) => [variable.name, variable.value])) };
  }
  const parsed = McpServers.safeParse(servers);
  if (!parsed.success) throw new UsageError(`The editor's MCP servers: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  return parsed.data;
}
