import { mainArgument } from '../common/tool-schemas';

/**
 * The allow rule an "allow for the rest of this run" answer adds when the human names none: the
 * call itself, exactly (`bash(npm test)`, `write_file(src/a.ts)`); an MCP tool or a tool without a
 * main argument by its name. Undefined when the exact argument cannot be written as a rule: a
 * trailing `*` would turn it into a prefix rule that allows more than the human saw.
 *
 * A blank argument derives none: the bare tool name would allow every later call of it.
 */
export function sessionRuleFor(tool: string, input: unknown): string | undefined {
  if (tool.startsWith('mcp__')) return tool;
  const argument = mainArgument(tool, input).trim();
  if (!argument) return undefined;
  if (argument.endsWith('*')) return undefined;
  return `${tool}(${argument})`;
}
