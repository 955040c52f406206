import { createHash } from 'node:crypto';
import { describeIssues } from '../../common/input';
import { HooksSettings, type HookEvent, type HookSpec } from '../../common/hooks';
import { McpFile, type McpServers } from '../../common/mcp';
import { readWorkspaceFile } from '../tools/read-workspace-file';

export const WORKSPACE_SETTINGS = '.bareagent/settings.json';
export const WORKSPACE_MCP_FILE = '.bareagent/mcp.json';

export class SettingsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export interface ReadSettingsFile {
  text: string;
  sha256: string;
}

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** A settings file of the workspace through the safe open, with its hash; undefined when there is none. */
export async function readSettingsFile(root: string, file: string): Promise<ReadSettingsFile | undefined> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readWorkspaceFile(root, file);
  } catch (err) {
    throw new SettingsFileError(`${file}: ${(err as Error).message}`);
  }
  return bytes === undefined ? undefined : { text: bytes.toString('utf8'), sha256: sha256(bytes) };
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SettingsFileError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
}

/** The hooks of a settings file's text, flattened, each naming its source. */
export function parseHooks(text: string, source: string): HookSpec[] {
  const parsed = HooksSettings.safeParse(parseJson(text, source));
  if (!parsed.success) throw new SettingsFileError(`${source}: ${describeIssues(parsed.error)}`);
  return Object.entries(parsed.data.hooks).flatMap(([event, groups]) =>
    (groups ?? []).flatMap((group) =>
      group.hooks.map((hook) => ({ event: event as HookEvent, ...(group.matcher ? { matcher: group.matcher } : {}), command: hook.command, timeout: hook.timeout, source })),
    ),
  );
}

/** The servers of an mcp.json text. */
export function parseMcpServers(text: string): McpServers {
  const parsed = McpFile.safeParse(parseJson(text, WORKSPACE_MCP_FILE));
  if (!parsed.success) throw new SettingsFileError(`${WORKSPACE_MCP_FILE}: ${describeIssues(parsed.error)}`);
  return parsed.data.mcpServers;
}

/**
 * The workspace's MCP servers as they were when the run started: the file is read again (so that
 * `env` and `headers` never enter the history) and must still have the hash recorded then. An
 * edited file is refused, never used: an agent that rewrites a server's command must not have it
 * run behind a tool the human already let through.
 */
export async function pinnedWorkspaceServers(root: string, expectedSha256: string): Promise<McpServers> {
  const read = await readSettingsFile(root, WORKSPACE_MCP_FILE);
  if (!read) throw new SettingsFileError(`${WORKSPACE_MCP_FILE} was removed after the run started; its servers are not used`);
  if (read.sha256 !== expectedSha256) {
    throw new SettingsFileError(`${WORKSPACE_MCP_FILE} changed after the run started (sha256 ${read.sha256.slice(0, 12)}…, recorded ${expectedSha256.slice(0, 12)}…); its servers are not used in this run`);
  }
  return parseMcpServers(read.text);
}
