import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { HooksConfig, HookSpec } from '../common/hooks';
import type { AgentRunConfig } from '../common/input';
import type { McpCatalog, McpServers } from '../common/mcp';
import type { SandboxRequest } from '../common/sandbox';
import {
  WORKSPACE_SETTINGS_REQUEST,
  WORKSPACE_SETTINGS_TOOL,
  shownMcpServer,
  type InheritedSettings,
  type SettingsDecision,
  type WorkspaceSettingsRead,
  type WorkspaceMcpServer,
  type WorkspaceSettingsStatus,
} from '../common/workspace-settings';
import { listMcpTools } from './mcp-tools';
import { readAtRunStart } from './activity-proxies';
import type { RunState } from './run-state';
import { adoptWorkspace } from './workspace-path';

const MCP_FILE = '.bareagent/mcp.json';

/** Reading the settings at run start: a read, safe to repeat. */
const settingsReading = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumAttempts: 3 } });

/** Asks the human about the workspace's settings, through the run's permission machinery: whether they were allowed, or the question timed out. */
export type AskAboutSettings = (input: Record<string, unknown>) => Promise<{ allowed: boolean; timedOut: boolean }>;

/**
 * The settings a run applies, fixed at the top-level run's start: the operator's hooks always; the
 * workspace's hooks and MCP servers only when the starter vouched for them
 * (`trustWorkspaceSettings`), the run is in `bypass`, or a human allowed them when asked. A
 * subagent reads nothing: it applies its parent's snapshot. Each outcome lands in the run's state,
 * recorded once, and `status` shows it.
 */
export async function applyWorkspaceSettings(config: Omit<AgentRunConfig, 'resume'>, sandbox: SandboxRequest, state: RunState, local: boolean, ask: AskAboutSettings): Promise<void> {
  if (config.depth > 0) {
    const inherited = config.workspaceSettings;
    state.hooks = inherited && inherited.hooks.length > 0 ? { hooks: inherited.hooks } : undefined;
    state.workspaceSettings = { files: inherited?.files ?? [], applied: inherited?.applied ?? false, decision: 'inherited' };
    return;
  }
  const read = await readAtRunStart('readWorkspaceSettings', { local, remote: settingsReading, toolTaskQueue: config.toolTaskQueue }, 'workspace settings (.bareagent/)', [
    { ...(config.workspace ? { workspace: config.workspace } : {}), ...(config.clientMcpServers ? { clientMcpServers: config.clientMcpServers } : {}) },
  ]);
  // From here on the run works in the path this read resolved and checked, whatever the given one names later.
  if (read.workspace !== undefined) adoptWorkspace(config, state, read.workspace);
  const hookErrors = (read.errors ?? []).filter((error) => !error.startsWith(MCP_FILE));
  const mcpError = (read.errors ?? []).find((error) => error.startsWith(MCP_FILE));
  // Until the human answers, only the operator's hooks hold (their PermissionRequest hooks see the question).
  state.hooks = hooksConfig(read.operatorHooks, hookErrors);
  const offered = config.clientMcpServers ?? {};
  const decision = await decide(config, read, offered, ask);
  const applied = decision === 'allowed' || decision === 'trusted' || decision === 'bypass';
  state.workspaceSettings = { files: read.files, applied, decision };
  // The client's servers, once allowed, run as the input's own do (whose name wins on a clash).
  const clientNames = Object.keys(offered).filter((name) => !(name in (config.mcpServers ?? {})));
  if (applied && clientNames.length > 0) config.mcpServers = { ...offered, ...config.mcpServers };
  state.hooks = hooksConfig([...read.operatorHooks, ...(applied ? read.hooks : [])], hookErrors);
  const mcpSha = read.files.find((file) => file.path === MCP_FILE)?.sha256;
  const useWorkspaceServers = applied && read.mcpServers.length > 0 && mcpSha !== undefined;
  const fileEntry: McpCatalog['servers'] = mcpError ? [{ name: MCP_FILE, source: 'workspace', tools: [], error: mcpError }] : [];
  if (!useWorkspaceServers && Object.keys(config.mcpServers ?? {}).length === 0) {
    state.mcp = fileEntry.length > 0 ? { servers: fileEntry } : undefined;
    return;
  }
  const pinsOf = (servers: WorkspaceMcpServer[]) => Object.fromEntries(servers.filter((server) => server.pins).map((server) => [server.name, server.pins ?? []]));
  const pins = pinsOf(read.mcpServers);
  // The client's servers start only if the workspace files they run are as the question showed them.
  const clientPins = applied && read.clientMcpServers ? pinsOf(read.clientMcpServers.filter((server) => clientNames.includes(server.name))) : undefined;
  const listed = await listMcpTools(config, sandbox, local, useWorkspaceServers ? mcpSha : null, useWorkspaceServers ? pins : undefined, clientPins);
  const servers = [...(listed?.servers ?? []), ...fileEntry];
  state.mcp = servers.length > 0 ? { servers } : undefined;
}

async function decide(config: Omit<AgentRunConfig, 'resume'>, read: WorkspaceSettingsRead, offered: McpServers, ask: AskAboutSettings): Promise<SettingsDecision> {
  if (read.hooks.length === 0 && read.mcpServers.length === 0 && Object.keys(offered).length === 0) return 'none';
  if (config.trustWorkspaceSettings) return 'trusted';
  if (config.permissionMode === 'bypass') return 'bypass';
  const answer = await ask(settingsQuestion(read, offered));
  return answer.allowed ? 'allowed' : answer.timedOut ? 'timed_out' : 'denied';
}

/**
 * What the human is asked about: every hook command and MCP server exactly as it would run, the
 * workspace files each runs, and the files' hashes; the servers a client offered, apart.
 */
export function settingsQuestion(read: WorkspaceSettingsRead, offered: McpServers = {}): Record<string, unknown> {
  // A worker that predates clientMcpServers read none: they are shown unpinned.
  const clientServers = read.clientMcpServers ?? Object.entries(offered).map(([name, server]) => shownMcpServer(name, server));
  return {
    files: read.files,
    ...(read.hooks.length
      ? {
          hooks: read.hooks.map((hook) => ({
            event: hook.event,
            ...(hook.matcher ? { matcher: hook.matcher } : {}),
            command: hook.command,
            ...(hook.pins ? { pins: hook.pins } : {}),
            ...(hook.unpinned ? { unpinned: hook.unpinned } : {}),
          })),
        }
      : {}),
    ...(read.mcpServers.length ? { mcpServers: read.mcpServers } : {}),
    ...(clientServers.length ? { clientMcpServers: clientServers } : {}),
  };
}

function hooksConfig(hooks: HookSpec[], errors: string[]): HooksConfig | undefined {
  return hooks.length > 0 || errors.length > 0 ? { hooks, ...(errors.length ? { errors } : {}) } : undefined;
}

/** What a subagent gets: the hooks in effect and the files' hashes, never a file to read. */
export function inheritedSettings(state: RunState): InheritedSettings | undefined {
  const status: WorkspaceSettingsStatus | undefined = state.workspaceSettings;
  if (!status) return undefined;
  return { hooks: state.hooks?.hooks ?? [], files: status.files, applied: status.applied };
}

export { WORKSPACE_SETTINGS_REQUEST, WORKSPACE_SETTINGS_TOOL };
