import { createHash } from 'node:crypto';
import { MCP_PREFIX } from '../../common/mcp';

/** OpenAI-compatible providers accept function names of at most 64 of these characters. */
const MAX_NAME = 64;

const clean = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * `mcp__<server>__<tool>` within the provider's charset and length; a name cut short or taken
 * already gets a short hash of the original, so two tools never share a name.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const full = `${MCP_PREFIX}${clean(server)}__${clean(tool)}`;
  if (full.length <= MAX_NAME && !taken.has(full)) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_NAME - 9)}_${hash}`;
}
