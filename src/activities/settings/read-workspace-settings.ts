import { readFile } from 'node:fs/promises';
import type { HookSpec } from '../../common/hooks';
import type { CommandPins } from '../../common/pinned-files';
import type { McpServers } from '../../common/mcp';
import { shownMcpServer, type SettingsFile, type WorkspaceMcpServer, type WorkspaceSettingsRead } from '../../common/workspace-settings';
import { workspaceRoot } from '../tools/workspace';
import { filesNamedByArgv, filesNamedByCommand, pinFiles } from './pinned-programs';
import { parseHooks, parseMcpServers, readSettingsFile, WORKSPACE_MCP_FILE, WORKSPACE_SETTINGS } from './settings-files';

/**
 * At the start of a top-level run: the operator's hooks (BAREAGENT_HOOKS_FILE, the worker's own
 * file) and what the workspace's `.bareagent/settings.json` and `.bareagent/mcp.json` bring, with
 * each file's hash. Recorded once: subagents get this snapshot through their input and nothing
 * reads the files again except to check them against it. A file that does not parse is reported
 * and left out.
 */
export function createReadWorkspaceSettings(workerFile: string | undefined) {
  return async function readWorkspaceSettings(request: { workspace?: string; clientMcpServers?: McpServers }): Promise<WorkspaceSettingsRead> {
    const root = workspaceRoot(request.workspace);
    const errors: string[] = [];
    const files: SettingsFile[] = [];
    let operatorHooks: HookSpec[] = [];
    let hooks: HookSpec[] = [];
    let mcpServers: WorkspaceMcpServer[] = [];
    if (workerFile) {
      try {
        operatorHooks = parseHooks(await readFile(workerFile, 'utf8'), 'worker');
      } catch (err) {
        errors.push(`worker: ${(err as Error).message.replace(/^worker: /, '')}`);
      }
    }
    await Promise.all([
      take(WORKSPACE_SETTINGS, (text) => {
        hooks = parseHooks(text, WORKSPACE_SETTINGS);
      }),
      take(WORKSPACE_MCP_FILE, (text) => {
        mcpServers = shown(parseMcpServers(text));
      }),
    ]);
    files.sort((a, b) => a.path.localeCompare(b.path));
    // The programs they name are pinned like the files that name them (src/activities/settings/pinned-programs.ts).
    // A client's servers (an editor's) are shown and pinned the same way, for the same question.
    const offered = request.clientMcpServers ? shown(request.clientMcpServers) : undefined;
    const [pinnedOperator, pinnedHooks, pinnedServers, clientMcpServers] = await Promise.all([
      pinHooks(root, operatorHooks),
      pinHooks(root, hooks),
      pinServers(root, mcpServers),
      offered ? pinServers(root, offered) : undefined,
    ]);
    return {
      files,
      operatorHooks: pinnedOperator,
      hooks: pinnedHooks,
      mcpServers: pinnedServers,
      ...(clientMcpServers ? { clientMcpServers } : {}),
      ...(errors.length ? { errors } : {}),
      workspace: root,
    };

    async function take(file: string, use: (text: string) => void): Promise<void> {
      try {
        const read = await readSettingsFile(root, file);
        if (!read) return;
        files.push({ path: file, sha256: read.sha256 });
        use(read.text);
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
  };
}

async function pinHooks(root: string, hooks: HookSpec[]): Promise<HookSpec[]> {
  return Promise.all(hooks.map(async (hook) => ({ ...hook, ...withPins(await pinFiles(root, filesNamedByCommand(hook.command)))})));
}

async function pinServers(root: string, servers: WorkspaceMcpServer[]): Promise<WorkspaceMcpServer[]> {
  return Promise.all(
    servers.map(async (server) =>
      server.command === undefined ? server : { ...server, ...withPins(await pinFiles(root, filesNamedByArgv([server.command, ...(server.args ?? [])].map((text) => ({ text, literal: true }))))) },
    ),
  );
}

/** Only what there is: a command that runs no workspace file carries no field. */
function withPins(found: CommandPins): Partial<CommandPins> {
  return { ...(found.pins.length ? { pins: found.pins } : {}), ...(found.unpinned ? { unpinned: found.unpinned } : {}) };
}

/** What the human is shown of each server: all but the values of `env` and `headers`. */
function shown(servers: McpServers): WorkspaceMcpServer[] {
  return Object.entries(servers).map(([name, config]) => shownMcpServer(name, config));
}
