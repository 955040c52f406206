import type { AgentRunConfig } from '../common/input';
import { mcpToolEffect, type McpCatalog, type McpServerListing, type McpTool } from '../common/mcp';
import type { ToolCall, ToolResultBlock } from '../common/messages';
import type { PinnedFile } from '../common/pinned-files';
import type { SandboxRequest } from '../common/sandbox';
import type { ToolOutcome } from '../common/tool-outcome';
import { checkMcpPermission } from '../loop/mcp-permission';
import type { PermissionDecision, PermissionPolicy } from '../loop/permissions';
import { deniedResult, handlerErrorResult, hookBlockedResult, toolResult } from '../loop/tool-results';
import { mcpListing, mcpOnce, mcpRepeatable, readAtRunStart } from './activity-proxies';
import { attempt } from './failures';

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
): Promise<McpCatalog | undefined> {
  if (config.depth > 0) return undefined;
  const catalog = await readAtRunStart('listMcpTools', { local, remote: mcpListing, toolTaskQueue: config.toolTaskQueue }, 'MCP servers: list tools', [
    { ...(config.workspace ? { workspace: config.workspace } : {}), servers: config.mcpServers ?? {}, sandbox, ...(workspaceSha256 !== undefined ? { workspaceSha256 } : {}), ...(workspacePins ? { workspacePins } : {}) },
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

export interface McpCallContext {
  config: Omit<AgentRunConfig, 'resume'>;
  sandbox: SandboxRequest;
  policy: PermissionPolicy;
  askHuman(call: ToolCall, parsedInput: unknown, decision: PermissionDecision): Promise<boolean>;
  /** See DispatchContext.beforeRun. */
  beforeRun?(call: ToolCall): Promise<string | undefined>;
  /** The call's idempotency key, sent in the request's `_meta`. */
  callKey(call: ToolCall): string;
  /** An at-most-once call failed: what is known when its worker was lost, as a sentence for the model. */
  atMostOnceFailed(call: ToolCall, summary: string, startedAtMs: number, err: unknown): Promise<string>;
}

/** One MCP tool call: guard, human if asked, then the call on the tool worker; every outcome is a tool result. */
export async function dispatchMcpCall(call: ToolCall, found: { tool: McpTool; server: McpServerListing }, context: McpCallContext): Promise<ToolResultBlock> {
  const { tool, server } = found;
  if (call.parseError) return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${call.parseError}`);
  const input = call.input ?? {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: arguments must be a JSON object`);
  }
  const effect = mcpToolEffect(tool);
  const decision = checkMcpPermission(context.policy, { name: tool.name, effect }, input);
  if (decision.behavior === 'deny') return deniedResult(call.id);
  if (decision.behavior === 'ask' && !(await context.askHuman(call, input, decision))) return deniedResult(call.id);
  const blocked = await context.beforeRun?.(call);
  if (blocked !== undefined) return hookBlockedResult(call.id, blocked);
  const { config } = context;
  const proxy = effect === 'once' ? mcpOnce : mcpRepeatable;
  const summary = `${server.name} · ${tool.tool}`.slice(0, 120);
  const startedAt = Date.now();
  const ran = await attempt<ToolOutcome>(() =>
    proxy.mcpCallTool.executeWithOptions(
      { summary, ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}) },
      [
        {
          ...(config.workspace ? { workspace: config.workspace } : {}),
          server: server.name,
          source: server.source,
          ...(server.source === 'input' && config.mcpServers?.[server.name] ? { config: config.mcpServers[server.name] } : {}),
          ...(server.sha256 ? { sha256: server.sha256 } : {}),
          ...(server.pins ? { pins: server.pins } : {}),
          tool: tool.tool,
          arguments: input as Record<string, unknown>,
          sandbox: context.sandbox,
          callId: context.callKey(call),
        },
      ],
    ),
  );
  if (!ran.ok) {
    const known = effect !== 'once' ? '' : await context.atMostOnceFailed(call, `${summary} ${JSON.stringify(input).slice(0, 200)}`, startedAt, ran.error);
    return handlerErrorResult(call.id, ran.type, ran.message + known);
  }
  const outcome = ran.value;
  if (!outcome.ok) return handlerErrorResult(call.id, outcome.errorType, outcome.message);
  return toolResult(call.id, outcome.output, outcome.isError ?? false);
}
