import { z } from 'zod';
import { HOOK_EVENTS, type HookSpec } from './hooks';
import type { McpServerConfig } from './mcp';
import { PinnedFile } from './pinned-files';

/** A workspace file that changes what runs, as read at the top-level run's start. */
export interface SettingsFile {
  /** Workspace-relative: `.bareagent/settings.json`, `.bareagent/mcp.json`. */
  path: string;
  /** Of the bytes read: what every later use of the file is checked against. */
  sha256: string;
}

/**
 * An MCP server of `.bareagent/mcp.json` as the human is shown it: what it starts or where it
 * connects, exactly; of `env` and `headers` only the names (their values may be secrets, and this
 * goes into the history; the file's hash pins them).
 */
export interface WorkspaceMcpServer {
  name: string;
  command?: string;
  args?: string[];
  url?: string;
  env?: string[];
  headers?: string[];
  /** The workspace files its command runs, with their digests (shown, and checked before each start and call). */
  pins?: PinnedFile[];
  unpinned?: string;
}

/** An MCP server as the human is shown it (the workspace's, a client's): all but the values of `env` and `headers`. */
export function shownMcpServer(name: string, config: McpServerConfig): WorkspaceMcpServer {
  if ('url' in config) return { name, url: config.url, ...(Object.keys(config.headers).length ? { headers: Object.keys(config.headers) } : {}) };
  return { name, command: config.command, args: config.args, ...(Object.keys(config.env).length ? { env: Object.keys(config.env) } : {}) };
}

/** What the run-start reading found: the operator's hooks, and the workspace's hooks and servers with their files' hashes. */
export interface WorkspaceSettingsRead {
  files: SettingsFile[];
  /** From BAREAGENT_HOOKS_FILE: the operator's, applied without a question. */
  operatorHooks: HookSpec[];
  /** From `.bareagent/settings.json`. */
  hooks: HookSpec[];
  mcpServers: WorkspaceMcpServer[];
  /** The run's `clientMcpServers` as shown and pinned for the run-start question (read only when the run has some). */
  clientMcpServers?: WorkspaceMcpServer[];
  /** Files that could not be used, and why. */
  errors?: string[];
  /** The workspace's real path, as resolved and checked by the read: the run's one path from then on (none in runs recorded before). */
  workspace?: string;
}

/** How the workspace's own settings came to be applied or not. */
export type SettingsDecision = 'none' | 'allowed' | 'denied' | 'timed_out' | 'trusted' | 'bypass' | 'inherited';

/** What `status` shows under `workspaceSettings`. */
export interface WorkspaceSettingsStatus {
  files: SettingsFile[];
  /** Whether the workspace's hooks and MCP servers are in effect in this run. */
  applied: boolean;
  decision: SettingsDecision;
}

const HookSpecShape = z.strictObject({
  event: z.enum(HOOK_EVENTS),
  matcher: z.string().optional(),
  command: z.string().min(1),
  timeout: z.number().positive().max(600),
  source: z.string(),
  pins: z.array(PinnedFile).optional(),
  unpinned: z.string().optional(),
});

/**
 * Internal input field: the snapshot a parent hands its subagents, so that a subagent reads no
 * settings file of its own (the agent may have changed one since the top-level run started).
 */
export const InheritedSettings = z.strictObject({
  hooks: z.array(HookSpecShape),
  files: z.array(z.strictObject({ path: z.string(), sha256: z.string() })),
  applied: z.boolean(),
});
export type InheritedSettings = z.output<typeof InheritedSettings>;

/** The pseudo-tool of the run-start question about the workspace's settings. */
export const WORKSPACE_SETTINGS_TOOL = 'workspace_settings';
/** Its request id: one question per run. */
export const WORKSPACE_SETTINGS_REQUEST = 'workspace-settings';
