import { AT_MOST_ONCE_TOOLS, READ_ONLY_TOOLS, TOOL_NAMES, toolEffects, WORKFLOW_TOOL_NAMES } from '../../src/common/tool-schemas';
import { KNOWN_TOOL_NAMES, SAFE_TOOLS } from '../../src/loop/permissions';

/** One table says what each tool may do; every set the loop decides by is read from it. */
test('every tool has one effect, and the sets the loop decides by are read from the table', () => {
  expect(Object.keys(toolEffects).sort()).toEqual([...TOOL_NAMES].sort());
  expect([...READ_ONLY_TOOLS].sort()).toEqual(['glob', 'grep', 'read_file']);
  expect([...AT_MOST_ONCE_TOOLS].sort()).toEqual(['bash', 'edit_file']);
  expect([...WORKFLOW_TOOL_NAMES].sort()).toEqual(['background_run', 'subagent']);
  expect(SAFE_TOOLS).toBe(READ_ONLY_TOOLS);
  expect([...KNOWN_TOOL_NAMES].sort()).toEqual([...TOOL_NAMES].sort());
});

test('no set names a tool that does not exist', () => {
  for (const set of [READ_ONLY_TOOLS, AT_MOST_ONCE_TOOLS, WORKFLOW_TOOL_NAMES, SAFE_TOOLS]) for (const name of set) expect(TOOL_NAMES).toContain(name);
});
