import { z } from 'zod';
import { defineTool, userToolDescriptor } from '../../src/activities/tools/define-tool';
import { ACTIVITY_TOOL_NAMES } from '../../src/common/tool-schemas';
import type { PermissionMode } from '../../src/common/input';
import { checkToolActivities } from '../../src/worker/tool-activity-check';

const saveNote = defineTool({
  name: 'save_note',
  description: 'Write a note file',
  parameters: z.strictObject({ file_path: z.string(), text: z.string() }),
  effect: 'repeatable',
  pathArgument: 'file_path',
  execute: () => 'saved',
});
const deploy = defineTool({
  name: 'deploy',
  description: 'Run a deploy command',
  parameters: z.strictObject({ script: z.string() }),
  effect: 'once',
  commandArgument: 'script',
  execute: () => 'deployed',
});
const search = defineTool({
  name: 'search_docs',
  description: 'Search a folder of docs',
  parameters: z.strictObject({ folder: z.string(), query: z.string() }),
  effect: 'read',
  folderArgument: 'folder',
  execute: () => '',
});

type Loaded = {
  permissions: typeof import('../../src/loop/permissions');
  settings: typeof import('../../src/loop/settings-files');
  hooks: typeof import('../../src/loop/hook-decisions');
  dirs: typeof import('../../src/loop/instruction-dirs');
  agentTypes: typeof import('../../src/loop/agent-types');
};
let permissions: Loaded['permissions'];
let settings: Loaded['settings'];
let hooks: Loaded['hooks'];
let dirs: Loaded['dirs'];
let agentTypes: Loaded['agentTypes'];

/**
 * The guard's modules as a plugin's workflow bundle builds them: the bundle's constant holds the
 * worker's tools (set here as a global before the modules load, as webpack's DefinePlugin sets it).
 */
beforeAll(() => {
  (globalThis as Record<string, unknown>).__BAREAGENT_USER_TOOLS__ = [saveNote, deploy, search].map(userToolDescriptor);
  try {
    jest.isolateModules(() => {
      /* eslint-disable @typescript-eslint/no-require-imports */
      permissions = require('../../src/loop/permissions');
      settings = require('../../src/loop/settings-files');
      hooks = require('../../src/loop/hook-decisions');
      dirs = require('../../src/loop/instruction-dirs');
      agentTypes = require('../../src/loop/agent-types');
      /* eslint-enable @typescript-eslint/no-require-imports */
    });
  } finally {
    delete (globalThis as Record<string, unknown>).__BAREAGENT_USER_TOOLS__;
  }
});

const guard = (mode: PermissionMode, tool: string, input: unknown, rules: { allow?: string[]; deny?: string[] } = {}) => {
  const policy = permissions.createPolicy(mode, rules);
  return settings.guardSettingsFiles(policy, tool, input, permissions.checkPermission(policy, tool, input)).behavior;
};

test("a user tool's declared arguments get what the built-in tools' get: path rules, settings protection, command parsing, folders", () => {
  // A writing tool asks in default mode and runs in auto mode, as write_file does; plan denies it.
  expect(guard('default', 'save_note', { file_path: 'notes/a.md', text: '' })).toBe('ask');
  expect(guard('auto', 'save_note', { file_path: 'notes/a.md', text: '' })).toBe('allow');
  expect(guard('plan', 'save_note', { file_path: 'notes/a.md', text: '' })).toBe('deny');
  // Its path is canonical for rules, and the settings files ask even in auto mode.
  expect(guard('auto', 'save_note', { file_path: './secrets/../secrets/k', text: '' }, { deny: ['save_note(secrets/*)'] })).toBe('deny');
  expect(guard('auto', 'save_note', { file_path: 'sub/../.bareagent/settings.json', text: '' })).toBe('ask');
  // Its command is parsed as bash's: `bash(...)` rules cover it, a dangerous command asks in auto mode.
  expect(guard('auto', 'deploy', { script: 'ls && rm -rf /' })).toBe('ask');
  expect(guard('default', 'deploy', { script: 'npm test; curl x' }, { allow: ['bash(npm test*)'] })).toBe('ask');
  expect(guard('default', 'deploy', { script: 'npm test' }, { allow: ['bash(npm test*)'] })).toBe('allow');
  expect(guard('default', 'deploy', { script: 'echo hi' }, { deny: ['deploy(echo*)'] })).toBe('deny');
  expect(hooks.hookMatches('bash(rm*)', 'deploy', { script: 'cd x && rm y' })).toBe(true);
  expect(hooks.hookMatches('save_note(notes/a.md)', 'save_note', { file_path: 'notes/a.md', text: '' })).toBe(true);
  // A read tool never asks; its folder is a touched directory.
  expect(guard('default', 'search_docs', { folder: 'docs', query: 'x' })).toBe('allow');
  expect(dirs.touchedDirectories([{ id: '1', name: 'search_docs', input: { folder: 'docs/api', query: 'x' } }, { id: '2', name: 'save_note', input: { file_path: 'notes/a.md', text: '' } }], undefined)).toEqual([
    'docs',
    'docs/api',
    'notes',
  ]);
  // Offered to general-purpose runs; only the read one to the looking types.
  expect(agentTypes.AGENT_TYPES['general-purpose']?.tools).toEqual(expect.arrayContaining(['save_note', 'deploy', 'search_docs']));
  expect(agentTypes.AGENT_TYPES.explore?.tools).toContain('search_docs');
  expect(agentTypes.AGENT_TYPES.explore?.tools).not.toContain('save_note');
});

test('defineTool refuses a definition the runtime cannot use, naming the tool', () => {
  const base = { description: 'x', parameters: z.strictObject({ a: z.string() }), effect: 'read' as const, execute: () => '' };
  expect(() => defineTool({ ...base, name: 'bash' })).toThrow('defineTool "bash": a built-in tool has this name');
  expect(() => defineTool({ ...base, name: 'has space' })).toThrow(/the name must be/);
  expect(() => defineTool({ ...base, name: 'mcp__x' })).toThrow(/MCP tools/);
  expect(() => defineTool({ ...base, name: 't', parameters: z.string() })).toThrow(/object schema/);
  expect(() => defineTool({ ...base, name: 't', pathArgument: 'b' })).toThrow('defineTool "t": pathArgument "b" is not a string field of its parameters');
  expect(() => defineTool({ ...base, name: 't', effect: 'workflow' as 'read' })).toThrow(/effect must be/);
});

test('a worker without the activity of a tool fails at start, naming it', () => {
  const all = Object.fromEntries(ACTIVITY_TOOL_NAMES.map((name) => [name, () => undefined]));
  expect(() => checkToolActivities(all)).not.toThrow();
  const { bash: _bash, ...withoutBash } = all;
  expect(() => checkToolActivities(withoutBash)).toThrow('BareAgent worker: no activity for the tool bash');
  expect(() => checkToolActivities(all, ['save_note'])).toThrow('no activity for the tool save_note');
});
