/**
 * Permission rules `tool(prefix*)`: `bash(npm test*)` matches commands starting with
 * "npm test", `write_file(.env)` matches exactly ".env", a bare `glob` matches every call.
 */
export interface PermissionRule {
  tool: string;
  argument?: string;
  prefix: boolean;
}

const RULE = /^\s*([A-Za-z_][\w-]*\*?)\s*(?:\((.*)\))?\s*$/s;

/** Only MCP tool names take a glob (`mcp__github__*`): the built-in tools are few and named in full. */
const NAME_GLOB_PREFIX = 'mcp__';

/** Checked where the run's input is parsed, so that a bad rule is bad input, not a stuck workflow task. */
export function isValidRule(text: string): boolean {
  const match = RULE.exec(text);
  if (!match) return false;
  const tool = match[1] as string;
  return !tool.endsWith('*') || tool.startsWith(NAME_GLOB_PREFIX);
}

export function parseRule(text: string): PermissionRule {
  const match = RULE.exec(text);
  if (!match) throw new Error(`Invalid permission rule "${text}": expected tool or tool(argument) or tool(prefix*)`);
  const tool = match[1] as string;
  // `bash( npm test* )` is `bash(npm test*)`: a stray space must not turn a prefix rule exact.
  const raw = match[2]?.trim();
  if (raw === undefined || raw === '*' || raw === '') return { tool, prefix: true, argument: '' };
  const prefix = raw.endsWith('*');
  return { tool, prefix, argument: prefix ? raw.slice(0, -1) : raw };
}
