import { Context } from '@temporalio/activity';
import type { McpCallRequest, McpCatalog, McpListRequest, McpServerConfig, McpServerListing, McpServers, McpTool } from '../../common/mcp';
import type { ToolOutcome } from '../../common/tool-outcome';
import { checkpointWorkspace } from '../checkpoint-activities';
import { workspaceRoot } from '../tools/workspace';
import { McpConnections } from './connections';
import { resultText } from './result-text';
import { mcpToolName } from './tool-names';
import type { PinnedFile } from '../../common/pinned-files';
import { checkPins, filesNamedByArgv, pinFiles } from '../settings/pinned-programs';
import { parseMcpServers, pinnedWorkspaceServers, readSettingsFile, WORKSPACE_MCP_FILE } from '../settings/settings-files';

/** One call's limit; the activity's start-to-close timeout is a little longer. */
export const MCP_CALL_TIMEOUT_MS = 5 * 60_000;
const HEARTBEAT_EVERY_MS = 2_000;
/** The `_meta` key of a call's idempotency key: a server that can dedupe a repeated call does. */
export const CALL_ID_META = 'bareagent/callId';
/** A listing runs every server one after the other: none may hold the run's start for long. */
const LIST_TIMEOUT_MS = 30_000;

export function createMcpActivities(connections = new McpConnections()) {
  /**
   * At run start: every server of the input and of the workspace's `.bareagent/mcp.json` (the
   * input wins on a name both have), with its tools. The workspace's servers only when the run
   * applies them (`workspaceSha256`), from the file as it was when the human saw it. A server that
   * fails is listed with its error, so the run goes on without its tools; the result is recorded,
   * so replay starts none.
   */
  async function listMcpTools(request: McpListRequest): Promise<McpCatalog> {
    const root = workspaceRoot(request.workspace);
    const fromInput = new Set(Object.keys(request.servers));
    let fromWorkspace: McpServers = {};
    let fileError: string | undefined;
    try {
      fromWorkspace = await workspaceServersFor(root, request.workspaceSha256);
    } catch (err) {
      fileError = (err as Error).message;
    }
    const all: McpServers = { ...fromWorkspace, ...request.servers };
    const taken = new Set<string>();
    const servers: McpServerListing[] = [];
    for (const [name, config] of Object.entries(all)) {
      const source = fromInput.has(name) ? 'input' : 'workspace';
      try {
        const pins = await serverPins(root, name, config, source === 'workspace' ? request.workspacePins?.[name] : request.clientPins?.[name]);
        const listed = await connections.use(name, config, root, request.sandbox, pins, (client) => client.listTools(undefined, { timeout: LIST_TIMEOUT_MS }));
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
        servers.push({ name, source, tools, ...(source === 'workspace' && request.workspaceSha256 ? { sha256: request.workspaceSha256 } : {}), ...(pins.length ? { pins } : {}) });
      } catch (err) {
        servers.push({ name, source, tools: [], error: (err as Error).message });
      }
    }
    if (fileError) servers.push({ name: '.bareagent/mcp.json', source: 'workspace', tools: [], error: fileError });
    return { servers };
  }

  /**
   * One MCP tool call. A server that does not start, dies or errs is a result the model reads, never
   * an activity failure. The checkpoint the request asks for is taken after it, whatever its outcome
   * (a call that failed may still have changed files): a scan, here on the worker that holds the
   * workspace, instead of a local activity after the round.
   */
  async function mcpCallTool(request: McpCallRequest): Promise<ToolOutcome> {
    const outcome = await callTool(request);
    return request.checkpoint ? { ...outcome, checkpoint: await checkpointWorkspace(request.checkpoint) } : outcome;
  }

  async function callTool(request: McpCallRequest): Promise<ToolOutcome> {
    const context = Context.current();
    const ticker = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      const root = workspaceRoot(request.workspace);
      if (request.source === 'workspace' && !request.sha256) {
        return { ok: false, errorType: 'McpServerError', message: `MCP server "${request.server}": this run recorded no hash of ${WORKSPACE_MCP_FILE}, so its servers are not used; start a new run` };
      }
      const config: McpServerConfig | undefined = request.source === 'input' ? request.config : (await pinnedWorkspaceServers(root, request.sha256 as string))[request.server];
      if (!config) return { ok: false, errorType: 'McpServerError', message: `MCP server "${request.server}" is no longer in ${WORKSPACE_MCP_FILE}` };
      await checkPins(root, request.pins).catch((err: Error) => {
        err.message = `MCP server "${request.server}" is not used in this run: ${err.message}`;
        throw err;
      });
      const result = await connections.use(request.server, config, root, request.sandbox, request.pins ?? [], (client) =>
        client.callTool({ name: request.tool, arguments: request.arguments, ...(request.callId ? { _meta: { [CALL_ID_META]: request.callId } } : {}) }, undefined, {
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

/**
 * The workspace files a stdio server runs: those the human was shown (checked again now, before it
 * starts), or for the input's servers, pinned now at the run's start.
 */
async function serverPins(root: string, name: string, config: McpServerConfig, shown: PinnedFile[] | undefined): Promise<PinnedFile[]> {
  if (shown) {
    await checkPins(root, shown).catch((err: Error) => {
      err.message = `MCP server "${name}" is not started: ${err.message}`;
      throw err;
    });
    return shown;
  }
  if (!('command' in config)) return [];
  return (await pinFiles(root, filesNamedByArgv([config.command, ...config.args].map((text) => ({ text, literal: true }))))).pins;
}

/**
 * `null`: the run does not use the workspace's servers; a hash: the file must still have it;
 * absent (runs that started before settings were a snapshot): the file as it is now.
 */
async function workspaceServersFor(root: string, expected: string | null | undefined): Promise<McpServers> {
  if (expected === null) return {};
  if (expected !== undefined) return pinnedWorkspaceServers(root, expected);
  const read = await readSettingsFile(root, WORKSPACE_MCP_FILE);
  return read ? parseMcpServers(read.text) : {};
}
