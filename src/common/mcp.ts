import { z } from 'zod';
import type { ToolEffect } from './tool-schemas';

const StringMap = z.record(z.string(), z.string());

/** A stdio server: started by the tool worker, inside the run's sandbox, with only `env` added to a minimal base. */
export const McpStdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: StringMap.default({}),
});

/** A streamable HTTP server, reached from the tool worker. */
export const McpHttpServer = z.strictObject({
  type: z.enum(['http', 'streamable-http']).optional(),
  url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }),
  headers: StringMap.default({}),
});

export const McpServerConfig = z.union([McpStdioServer, McpHttpServer], {
  error: (issue) => (issue.code === 'invalid_union' ? 'must be { command, args?, env? } or { url, headers? }' : undefined),
});
export type McpServerConfig = z.output<typeof McpServerConfig>;

/** Server names become part of tool names (`mcp__<server>__<tool>`), which providers limit to this charset. */
export const McpServerName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, { message: 'must be 1-32 letters, digits, "_" or "-"' });

/** The `mcpServers` of the run's input and of `.bareagent/mcp.json`: the common mcp.json shape. */
export const McpServers = z.record(McpServerName, McpServerConfig);
export type McpServers = z.output<typeof McpServers>;

/** `.bareagent/mcp.json` in the workspace: `{ "mcpServers": { ... } }`, as other agents write it. */
export const McpFile = z.object({ mcpServers: McpServers.default({}) });

/** What the run-start listing recorded about one tool: enough to offer it to the model and call it. */
export interface McpTool {
  /** What the model calls: `mcp__<server>__<tool>`, limited to the provider's charset. */
  name: string;
  server: string;
  /** The server's own name for it. */
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /**
   * The server's hints, in the shape the listing records them (histories and carried state hold
   * it): `readOnlyHint`, and `readOnlyHint` or `idempotentHint`. Decisions read `mcpToolEffect`.
   */
  readOnly: boolean;
  repeatable: boolean;
}

/** What an MCP tool may do, the same `effect` a built-in tool has: read, repeatable, else once. */
export function mcpToolEffect(tool: Pick<McpTool, 'readOnly' | 'repeatable'>): ToolEffect {
  return tool.readOnly ? 'read' : tool.repeatable ? 'repeatable' : 'once';
}

export interface McpServerListing {
  name: string;
  /** `input` servers travel in the call's arguments; `workspace` ones are read again from the file, so their env stays out of the history. */
  source: 'input' | 'workspace';
  /** A `workspace` server's file as the run's start read it: each call checks the file still has this hash. */
  sha256?: string;
  /** The workspace files its stdio command runs, with their digests at run start: each call checks them first. */
  pins?: import('./pinned-files').PinnedFile[];
  tools: McpTool[];
  /** Set when the server could not be started or listed: its tools are missing from this run. */
  error?: string;
}

export interface McpCatalog {
  servers: McpServerListing[];
}

export interface McpListRequest {
  workspace?: string;
  servers: McpServers;
  /** The hash of `.bareagent/mcp.json` the run applies; null: the run leaves the workspace's servers out. */
  workspaceSha256?: string | null;
  /** The workspace files each workspace server runs, as the human was shown them at the run-start question. */
  workspacePins?: Record<string, import('./pinned-files').PinnedFile[]>;
  /** The files each of the run's `clientMcpServers` runs, as the run-start question showed them: a change refuses the server. */
  clientPins?: Record<string, import('./pinned-files').PinnedFile[]>;
  sandbox: import('./sandbox').SandboxRequest;
}

export interface McpCallRequest {
  workspace?: string;
  server: string;
  source: 'input' | 'workspace';
  /** The server's configuration when it came with the input. */
  config?: McpServerConfig;
  /** A workspace server's file hash recorded at run start; the call is refused when the file no longer has it. */
  sha256?: string;
  /** The files the server's command runs, recorded at run start; the call is refused when one changed. */
  pins?: import('./pinned-files').PinnedFile[];
  tool: string;
  arguments: Record<string, unknown>;
  sandbox: import('./sandbox').SandboxRequest;
  /** The call's idempotency key, sent to the server in the request's `_meta` (`bareagent/callId`). */
  callId?: string;
  /** The checkpoint to take once the call ran, in the same activity (a scan: an MCP server may change any file). */
  checkpoint?: import('./checkpoint').CheckpointRequest;
}

export const MCP_PREFIX = 'mcp__';

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_PREFIX);
}
