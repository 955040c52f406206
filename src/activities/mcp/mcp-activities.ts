import { Context } from '@temporalio/activity';
import type { McpCallRequest, McpCatalog, McpListRequest, McpServerConfig, McpServerListing, McpServers, McpTool } from '../../common/mcp';
import type { ToolOutcome } from '../../common/tool-outcome';
import { workspaceRoot } from '../tools/workspace';
import { McpConnections } from './connections';
import { resultText } from './result-text';
import { mcpToolName } from './tool-names';
import { workspaceServers } from './workspace-servers';

/** One call's limit; the activity's start-to-close timeout is a little longer. */
export const MCP_CALL_TIMEOUT_MS = 5 * 60_000;
const HEARTBEAT_EVERY_MS = 2_000;
/** A listing runs every server one after the other: none may hold the run's start for long. */
const LIST_TIMEOUT_MS = 30_000;

export function createMcpActivities(connections = new McpConnections()) {
  /**
   * At run start: every server of the input and of the workspace's `.bareagent/mcp.json` (the
   * input wins on a name both have), with its tools. A server that fails is listed with its
   * error, so the run goes on without its tools; the result is recorded, so replay starts none.
   */
  async function listMcpTools(request: McpListRequest): Promise<McpCatalog> {
    const root = workspaceRoot(request.workspace);
    const fromInput = new Set(Object.keys(request.servers));
    let fromWorkspace: McpServers = {};
    let fileError: string | undefined;
    try {
      fromWorkspace = workspaceServers(root);
    } catch (err) {
      fileError = (err as Error).message;
    }
    const all: McpServers = { ...fromWorkspace, ...request.servers };
    const taken = new Set<string>();
    const servers: McpServerListing[] = [];
    for (const [name, config] of Object.entries(all)) {
      const source = fromInput.has(name) ? 'input' : 'workspace';
      try {
        const listed = await connections.use(name, config, root, request.sandbox, (client) => client.listTools(undefined, { timeout: LIST_TIMEOUT_MS }));
        const tools: McpTool[] = listed.tools.map((tool) => {
          const toolName = mcpToolName(name, tool.name, taken);
          taken.add(toolName);
          const readOnly = tool.annotations?.readOnlyHint === true;
          return {
            name: toolName,
            server: name,
            tool: tool.name,
            description: (tool.description ?? tool.title ?? '').slice(0, 2000),
            inputSchema: tool.inputSchema as Record<string, unknown>,
            readOnly,
            repeatable: readOnly || tool.annotations?.idempotentHint === true,
          };
        });
        servers.push({ name, source, tools });
      } catch (err) {
        servers.push({ name, source, tools: [], error: (err as Error).message });
      }
    }
    if (fileError) servers.push({ name: '.bareagent/mcp.json', source: 'workspace', tools: [], error: fileError });
    return { servers };
  }

  /** One MCP tool call. A server that does not start, dies or errs is a result the model reads, never an activity failure. */
  async function mcpCallTool(request: McpCallRequest): Promise<ToolOutcome> {
    const context = Context.current();
    const ticker = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      const root = workspaceRoot(request.workspace);
      const config: McpServerConfig | undefined = request.source === 'input' ? request.config : workspaceServers(root)[request.server];
      if (!config) return { ok: false, errorType: 'McpServerError', message: `MCP server "${request.server}" is no longer in .bareagent/mcp.json` };
      const result = await connections.use(request.server, config, root, request.sandbox, (client) =>
        client.callTool({ name: request.tool, arguments: request.arguments }, undefined, {
          timeout: MCP_CALL_TIMEOUT_MS,
          signal: context.cancellationSignal,
        }),
      );
      return { ok: true, output: resultText(result), isError: result.isError === true };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      return { ok: false, errorType: error.name === 'Error' ? 'McpError' : error.name, message: error.message };
    } finally {
      clearInterval(ticker);
    }
  }

  return { listMcpTools, mcpCallTool };
}
