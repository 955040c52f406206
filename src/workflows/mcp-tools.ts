import type { CheckpointRequest } from '../common/checkpoint';
import type { AgentRunConfig } from '../common/input';
import { mcpToolEffect, type McpCatalog, type McpServerListing, type McpTool } from '../common/mcp';
import type { PinnedFile } from '../common/pinned-files';
import type { SandboxRequest } from '../common/sandbox';
import { checkMcpPermission } from '../loop/mcp-permission';
import type { PermissionPolicy } from '../loop/permissions';
import { mcpListing, mcpOnce, mcpRepeatable, readAtRunStart } from './activity-proxies';
import type { ToolKind } from './tool-dispatch';

/**
 * At the start of a new top-level run: the MCP servers' tools, listed by the tool worker and
 * recorded, so a replay starts no server. Behind a patch, since it adds an activity to every new
 * run (the workspace may name servers in `.bareagent/mcp.json` even when the input names none).
 */
export async function listMcpTools(
  config: Omit<AgentRunConfig, 'resume'>,
  sandbox: SandboxRequest,
  local = false,
  /** The hash of the workspace's mcp.json the run applies, null for none; absent in runs recorded before settings were a snapshot. */
  workspaceSha256?: string | null,
  /** The files each workspace server runs, as the run-start question showed them. */
  workspacePins?: Record<string, PinnedFile[]>,
  /** The same for the run's `clientMcpServers`, once allowed. */
  clientPins?: Record<string, PinnedFile[]>,
): Promise<McpCatalog | undefined> {
  if (config.depth > 0) return undefined;
  const catalog = await readAtRunStart('listMcpTools', { local, remote: mcpListing, toolTaskQueue: config.toolTaskQueue }, 'MCP servers: list tools', [
    { ...(config.workspace ? { workspace: config.workspace } : {}), servers: config.mcpServers ?? {}, sandbox, ...(workspaceSha256 !== undefined ? { workspaceSha256 } : {}), ...(workspacePins ? { workspacePins } : {}), ...(clientPins && Object.keys(clientPins).length ? { clientPins } : {}) },
  ]);
  return catalog.servers.length > 0 ? catalog : undefined;
}

export function findMcpTool(catalog: McpCatalog | undefined, name: string): { tool: McpTool; server: McpServerListing } | undefined {
  for (const server of catalog?.servers ?? []) {
    const tool = server.tools.find((t) => t.name === name);
    if (tool) return { tool, server };
  }
  return undefined;
}

/** What the model is told about servers that did not start: their tools are missing, and why. */
export function mcpSystemNote(catalog: McpCatalog | undefined): string | undefined {
  const failed = (catalog?.servers ?? []).filter((server) => server.error);
  if (failed.length === 0) return undefined;
  return ['Some MCP servers are unavailable in this run:', ...failed.map((server) => `- ${server.name}: ${server.error}`)].join('\n');
}

export interface McpToolContext {
  config: Omit<AgentRunConfig, 'resume'>;
  sandbox: SandboxRequest;
  policy: PermissionPolicy;
  /** The call's idempotency key, sent in the request's `_meta`. */
  callKey: string;
  /** The checkpoint the call's activity takes after it, if the round wants one there. */
  checkpointRequest?(): CheckpointRequest | undefined;
}

/** An MCP tool of the run's listing: a JSON object's arguments, the MCP guard, the call on the tool worker. */
export function mcpTool({ tool, server }: { tool: McpTool; server: McpServerListing }, context: McpToolContext): ToolKind {
  const effect = mcpToolEffect(tool);
  const summary = `${server.name} · ${tool.tool}`.slice(0, 120);
  return {
    effect,
    validate: (input) => {
      const args = input ?? {};
      return typeof args !== 'object' || Array.isArray(args) ? { invalid: 'arguments must be a JSON object' } : { args };
    },
    decide: (args) => checkMcpPermission(context.policy, { name: tool.name, effect }, args),
    execute: (args) => {
      const { config } = context;
      const checkpoint = context.checkpointRequest?.();
      return (effect === 'once' ? mcpOnce : mcpRepeatable).mcpCallTool.executeWithOptions({ summary, ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}) }, [
        {
          ...(config.workspace ? { workspace: config.workspace } : {}),
          server: server.name,
          source: server.source,
          ...(server.source === 'input' && config.mcpServers?.[server.name] ? { config: config.mcpServers[server.name] } : {}),
          ...(server.sha256 ? { sha256: server.sha256 } : {}),
          ...(server.pins ? { pins: server.pins } : {}),
          tool: tool.tool,
          arguments: args as Record<string, unknown>,
          sandbox: context.sandbox,
          callId: context.callKey,
          ...(checkpoint ? { checkpoint } : {}),
        },
      ]);
    },
    describe: (args) => `${summary} ${JSON.stringify(args).slice(0, 200)}`,
  };
}
