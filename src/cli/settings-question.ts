import { WORKSPACE_SETTINGS_TOOL } from '../common/workspace-settings';

interface Shown {
  files?: Array<{ path: string; sha256: string }>;
  hooks?: Array<{ event: string; matcher?: string; command: string }>;
  mcpServers?: Array<{ name: string; command?: string; args?: string[]; url?: string; env?: string[]; headers?: string[] }>;
}

/**
 * The lines shown above the run-start question about a workspace's own settings: every hook
 * command and MCP server as it would run, each quoted as JSON so that no control character in a
 * command can hide part of it, and the hashes of the files. Empty for any other question.
 */
export function settingsQuestionLines(tool: string, input: unknown): string[] {
  if (tool !== WORKSPACE_SETTINGS_TOOL || !input || typeof input !== 'object') return [];
  const shown = input as Shown;
  const lines = ["The workspace's .bareagent/ brings settings of its own; allowing applies them to this run and its subagents:"];
  for (const hook of shown.hooks ?? []) lines.push(`  hook ${hook.event}${hook.matcher ? `(${hook.matcher})` : ''}: ${JSON.stringify(hook.command)}`);
  for (const server of shown.mcpServers ?? []) {
    const what = server.url ? `url ${JSON.stringify(server.url)}` : `command ${JSON.stringify([server.command, ...(server.args ?? [])])}`;
    const names = [...(server.env ?? []).map((n) => `env ${n}`), ...(server.headers ?? []).map((n) => `header ${n}`)];
    lines.push(`  MCP server ${server.name}: ${what}${names.length ? ` (${names.join(', ')})` : ''}`);
  }
  for (const file of shown.files ?? []) lines.push(`  ${file.path} sha256 ${file.sha256}`);
  return lines;
}
