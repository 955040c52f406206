import { WORKSPACE_SETTINGS_TOOL } from '../common/workspace-settings';

interface Pins {
  pins?: Array<{ path: string; sha256: string | null }>;
  unpinned?: string;
}

interface Shown {
  files?: Array<{ path: string; sha256: string }>;
  hooks?: Array<{ event: string; matcher?: string; command: string } & Pins>;
  mcpServers?: ShownServer[];
  clientMcpServers?: ShownServer[];
}

type ShownServer = { name: string; command?: string; args?: string[]; url?: string; env?: string[]; headers?: string[] } & Pins;

function serverLine(server: ShownServer): string {
  const what = server.url ? `url ${JSON.stringify(server.url)}` : `command ${JSON.stringify([server.command, ...(server.args ?? [])])}`;
  const names = [...(server.env ?? []).map((n) => `env ${n}`), ...(server.headers ?? []).map((n) => `header ${n}`)];
  return `  MCP server ${server.name}: ${what}${names.length ? ` (${names.join(', ')})` : ''}`;
}

/** Under a command: the workspace files it runs, each pinned by its digest, and what no digest covers. */
function pinLines(shown: Pins): string[] {
  const lines = (shown.pins ?? []).map((pin) =>
    pin.sha256 === null
      ? `    runs workspace file ${JSON.stringify(pin.path)} (absent now; pinned absent: if it appears, this is refused)`
      : `    runs workspace file ${JSON.stringify(pin.path)} sha256 ${pin.sha256} (pinned: a change refuses it)`,
  );
  if (shown.unpinned) lines.push(`    may run workspace code no digest covers: ${JSON.stringify(shown.unpinned)}`);
  return lines;
}

/**
 * The lines shown above the run-start question about a workspace's own settings: every hook
 * command and MCP server as it would run, each quoted as JSON so that no control character in a
 * command can hide part of it, and the hashes of the files. Empty for any other question.
 */
export function settingsQuestionLines(tool: string, input: unknown): string[] {
  if (tool !== WORKSPACE_SETTINGS_TOOL || !input || typeof input !== 'object') return [];
  const shown = input as Shown;
  const lines: string[] = [];
  if (shown.hooks?.length || shown.mcpServers?.length) lines.push("The workspace's .bareagent/ brings settings of its own; allowing applies them to this run and its subagents:");
  for (const hook of shown.hooks ?? []) lines.push(`  hook ${hook.event}${hook.matcher ? `(${hook.matcher})` : ''}: ${JSON.stringify(hook.command)}`, ...pinLines(hook));
  for (const server of shown.mcpServers ?? []) lines.push(serverLine(server), ...pinLines(server));
  for (const file of shown.files ?? []) lines.push(`  ${file.path} sha256 ${file.sha256}`);
  if (shown.clientMcpServers?.length) lines.push('The client that started this run (an editor) offers MCP servers; allowing runs them in the run\'s sandbox:');
  for (const server of shown.clientMcpServers ?? []) lines.push(serverLine(server), ...pinLines(server));
  return lines;
}
