import { READ_ONLY_TOOLS, TOOL_NAMES, toolEffects, toolsWith, WORKFLOW_TOOL_NAMES } from '../../src/common/tool-schemas';
import { mcpToolEffect } from '../../src/common/mcp';
import { AGENT_TYPES } from '../../src/loop/agent-types';
import { KNOWN_TOOL_NAMES } from '../../src/loop/permissions';

/** One table says what each tool may do; every set the loop decides by is read from it. */
test('every tool has one effect, and the sets the loop decides by are read from the table', () => {
  expect(Object.keys(toolEffects).sort()).toEqual([...TOOL_NAMES].sort());
  expect([...READ_ONLY_TOOLS].sort()).toEqual(['glob', 'grep', 'read_file']);
  expect([...toolsWith('once')].sort()).toEqual(['bash', 'edit_file']);
  expect([...WORKFLOW_TOOL_NAMES].sort()).toEqual(['background_run', 'subagent']);
  expect([...KNOWN_TOOL_NAMES].sort()).toEqual([...TOOL_NAMES].sort());
});

test("the agent types' tools, in the order the model is offered them", () => {
  expect(AGENT_TYPES['general-purpose']?.tools).toEqual(['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'bash', 'background_run', 'subagent']);
  for (const type of ['explore', 'plan', 'code-review']) expect(AGENT_TYPES[type]?.tools).toEqual(['read_file', 'glob', 'grep', 'bash']);
});

test("an MCP tool's effect comes from its server's hints as the listing recorded them", () => {
  expect(mcpToolEffect({ readOnly: true, repeatable: true })).toBe('read');
  expect(mcpToolEffect({ readOnly: false, repeatable: true })).toBe('repeatable');
  expect(mcpToolEffect({ readOnly: false, repeatable: false })).toBe('once');
});
