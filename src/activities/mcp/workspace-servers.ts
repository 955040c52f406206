import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describeIssues } from '../../common/input';
import { McpFile, type McpServers } from '../../common/mcp';

export const WORKSPACE_MCP_FILE = path.join('.bareagent', 'mcp.json');

export class McpConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The servers of the workspace's `.bareagent/mcp.json`; none when there is no such file. */
export function workspaceServers(root: string): McpServers {
  let text: string;
  try {
    text = readFileSync(path.join(root, WORKSPACE_MCP_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new McpConfigError(`${WORKSPACE_MCP_FILE}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`${WORKSPACE_MCP_FILE}: not valid JSON: ${(err as Error).message}`);
  }
  const parsed = McpFile.safeParse(raw);
  if (!parsed.success) throw new McpConfigError(`${WORKSPACE_MCP_FILE}: ${describeIssues(parsed.error)}`);
  return parsed.data.mcpServers;
}
