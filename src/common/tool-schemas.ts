import { visibleText } from './visible-text';
import { z } from 'zod';

/**
 * What each tool may do, the one place every decision about it reads:
 * - `read`: changes nothing (never asks, runs beside other reads, as a local activity, no checkpoint);
 * - `repeatable`: writes, and running it twice leaves what running it once does (retried after a lost worker);
 * - `once`: may not run twice (at most once: a lost worker gives the model what is known instead of a retry);
 * - `workflow`: run by the workflow itself as a child workflow, not by a tool activity;
 * - `answer`: ends the task (`final_answer`), taken by the loop itself, never dispatched.
 * An MCP tool's effect comes from its server's hints (`readOnlyHint` → read, `idempotentHint` → repeatable, else once).
 */
export type ToolEffect = 'read' | 'repeatable' | 'once' | 'workflow' | 'answer';

/**
 * The workflow-safe half of a tool's definition (its `execute` lives worker-side, in
 * src/activities/tools/ for the built-in ones): every set the guard, the hooks, the settings
 * protection, the checkpoints, the instruction folders and the summaries use is read from these.
 */
export interface ToolDescriptor {
  name: string;
  description: string;
  effect: ToolEffect;
  /** The argument that names the one file the tool reads or writes: guard rules, settings protection, instruction folders. */
  pathArgument?: string;
  /** The argument that names a folder the tool looks through (default `.`): guard rules, instruction folders. */
  folderArgument?: string;
  /** The argument that is a shell command: parsed and checked as a command by the guard and the hooks, run in the sandbox. */
  commandArgument?: string;
  /** When no rule names a call of a writing tool that is not a command: `ask` asks in default mode (auto allows), `allow` never asks. */
  unnamedCall?: 'ask' | 'allow';
}

/** A built-in tool: its descriptor with its zod parameters (part of the public contract: docs/tools.md). */
export interface BuiltInDescriptor extends Omit<ToolDescriptor, 'name'> {
  parameters: z.ZodType;
}

/**
 * BareAgent's tools, one definition each. Shared by the workflow (argument checks, permission
 * guard) and the provider (JSON schemas); the activities are in src/activities/tools/.
 */
export const BUILT_IN_TOOLS = {
  read_file: {
    description: 'Read a text file of the workspace; lines come back numbered "1: ...".',
    effect: 'read',
    pathArgument: 'file_path',
    parameters: z.strictObject({
      file_path: z.string().min(1).describe('Path of the file, relative to the workspace'),
      offset: z.number().int().min(0).default(0).describe('Line to start from (0-based)'),
      limit: z.number().int().positive().optional().describe('Maximum number of lines to return'),
    }),
  },
  write_file: {
    description: 'Create or overwrite a file of the workspace with the given content.',
    effect: 'repeatable',
    pathArgument: 'file_path',
    unnamedCall: 'ask',
    parameters: z.strictObject({
      file_path: z.string().min(1).describe('Path of the file, relative to the workspace'),
      content: z.string().describe('The whole new content of the file'),
    }),
  },
  edit_file: {
    description: 'Replace the first occurrence of old_text with new_text in a file of the workspace.',
    effect: 'once',
    pathArgument: 'file_path',
    unnamedCall: 'allow',
    parameters: z.strictObject({
      file_path: z.string().min(1).describe('Path of the file, relative to the workspace'),
      old_text: z.string().min(1).describe('Exact text to replace (its first occurrence)'),
      new_text: z.string().describe('Replacement text'),
    }),
  },
  glob: {
    description: 'List files of the workspace matching a glob pattern.',
    effect: 'read',
    folderArgument: 'path',
    parameters: z.strictObject({
      pattern: z.string().min(1).describe('Glob pattern such as "src/**/*.ts"'),
      path: z.string().default('.').describe('Directory to search from, relative to the workspace'),
    }),
  },
  grep: {
    description: 'Search file contents of the workspace with a regular expression (at most 1000 matches).',
    effect: 'read',
    folderArgument: 'path',
    parameters: z.strictObject({
      pattern: z.string().min(1).describe('Regular expression to search for'),
      path: z.string().default('.').describe('File or directory to search, relative to the workspace'),
      include: z.string().default('').describe('Only files whose name matches this glob, e.g. "*.ts"'),
    }),
  },
  bash: {
    description: 'Run a shell command in the workspace and return its output.',
    effect: 'once',
    commandArgument: 'command',
    parameters: z.strictObject({
      command: z.string().min(1).describe('Shell command, run in the workspace'),
      timeout: z.number().positive().max(3600).default(30).describe('Seconds before the command is killed'),
    }),
  },
  background_run: {
    description: 'Start a shell command in the background and return its task id at once; its result arrives later as a notification.',
    effect: 'workflow',
    commandArgument: 'command',
    parameters: z.strictObject({
      command: z.string().min(1).describe('Shell command to run in the background, in the workspace'),
      timeout: z.number().positive().max(3600).default(30).describe('Seconds before the job is killed'),
      task_id: z
        .string()
        // Spelled out, not \w: grammar-constrained servers (llama.cpp) cannot compile escape classes.
        .regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1-64 letters, digits, ".", "_" or "-"' })
        .optional()
        .describe('A name for the job (default: job-<n>)'),
    }),
  },
  subagent: {
    description: 'Hand a self-contained task to a subagent with its own history and tools; returns its final answer.',
    effect: 'workflow',
    parameters: z.strictObject({
      task: z.string().min(1).describe('What the subagent should do, with all the context it needs'),
      agent_type: z.string().min(1).default('general-purpose').describe('general-purpose, explore, plan or code-review'),
      run_in_background: z.boolean().default(false).describe('Return at once; the result arrives as a notification'),
      budget: z
        .strictObject({
          max_tokens: z.number().int().positive().optional().describe('Tokens the subagent may spend'),
          max_cost_usd: z.number().positive().optional().describe('USD the subagent may spend'),
        })
        .optional()
        .describe("The subagent's share of this run's budget (capped by what is left; default: all that is left)"),
    }),
  },
  final_answer: {
    description: 'Finish the task: call this alone, once the work is done and checked, with your answer. Nothing else ends the task.',
    effect: 'answer',
    parameters: z.strictObject({
      answer: z.string().min(1).describe('The answer to the task, complete: what the user reads'),
      changes: z.string().optional().describe('For a coding task: which files you changed and how'),
      checks: z.string().optional().describe('For a coding task: how you checked the change (the command you ran and its result)'),
    }),
  },
} as const satisfies Record<string, BuiltInDescriptor>;

export type ToolName = keyof typeof BUILT_IN_TOOLS;
export const TOOL_NAMES = Object.keys(BUILT_IN_TOOLS) as ToolName[];

/** Each tool's zod parameters, checked by the workflow and turned into JSON schemas for the model. */
export const toolSchemas = Object.fromEntries(TOOL_NAMES.map((name) => [name, BUILT_IN_TOOLS[name].parameters])) as {
  [N in ToolName]: (typeof BUILT_IN_TOOLS)[N]['parameters'];
};
export type ToolArgs<N extends ToolName> = z.output<(typeof toolSchemas)[N]>;

export const toolDescriptions = Object.fromEntries(TOOL_NAMES.map((name) => [name, BUILT_IN_TOOLS[name].description])) as Record<ToolName, string>;
export const toolEffects = Object.fromEntries(TOOL_NAMES.map((name) => [name, BUILT_IN_TOOLS[name].effect])) as Record<ToolName, ToolEffect>;

const BUILT_IN_DESCRIPTORS = Object.fromEntries(
  TOOL_NAMES.map((name) => {
    const { parameters: _zod, ...descriptor } = BUILT_IN_TOOLS[name];
    return [name, { name, ...descriptor }];
  }),
) as Record<ToolName, ToolDescriptor>;

/** A built-in tool's descriptor, with its name. */
export function builtInDescriptor(name: ToolName): ToolDescriptor {
  return BUILT_IN_DESCRIPTORS[name];
}

/** The built-in tools of one effect. */
export function toolsWith(effect: ToolEffect): ReadonlySet<string> {
  return new Set(TOOL_NAMES.filter((name) => toolEffects[name] === effect));
}

/** Built-in tools that only read. */
export const READ_ONLY_TOOLS = toolsWith('read');
/** Tools run by the workflow itself (child workflows), not by a tool activity. */
export const WORKFLOW_TOOL_NAMES = toolsWith('workflow');
/** Built-in tools run by a tool activity (the worker registers one activity per tool, named as the tool). */
export const ACTIVITY_TOOL_NAMES = TOOL_NAMES.filter((name) => isActivityEffect(toolEffects[name]));
export type ActivityToolName = Exclude<ToolName, { [N in ToolName]: (typeof BUILT_IN_TOOLS)[N]['effect'] extends 'workflow' | 'answer' ? N : never }[ToolName]>;

/** Whether a tool of this effect runs as an activity. */
export function isActivityEffect(effect: ToolEffect): boolean {
  return effect === 'read' || effect === 'repeatable' || effect === 'once';
}

/** The built-in writing tools whose path argument names all they write: a checkpoint after them needs no scan. */
export const PATH_WRITING_TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES.filter((name) => builtInDescriptor(name).pathArgument !== undefined && !READ_ONLY_TOOLS.has(name)));
/** The built-in tools that only read the file their path argument names: their deny rules keep the file out of checkpoints. */
export const PATH_READING_TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES.filter((name) => builtInDescriptor(name).pathArgument !== undefined && READ_ONLY_TOOLS.has(name)));

/** The tool a run with `finalAnswer: "tool"` ends with: taken by the loop itself, never dispatched. */
export const FINAL_ANSWER_TOOL = 'final_answer';
/** The name command rules are written with (`bash(npm test*)`): they cover every tool whose argument is a command. */
export const COMMAND_RULE_TOOL = 'bash';

export function isToolName(name: string): name is ToolName {
  return Object.prototype.hasOwnProperty.call(BUILT_IN_TOOLS, name);
}

/** The argument the Web UI and the CLI show beside the tool's name. */
/** The fields that summarise a call, in order of precedence: the first present is its main argument. */
export const MAIN_ARGUMENT_FIELDS = ['file_path', 'command', 'pattern', 'task'] as const;

/** The field `mainArgument` shows, if the input has one. */
export function mainArgumentField(input: unknown): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const args = input as Record<string, unknown>;
  return MAIN_ARGUMENT_FIELDS.find((name) => args[name] !== undefined && args[name] !== null);
}

export function mainArgument(_tool: string, input: unknown): string {
  const field = mainArgumentField(input);
  if (field === undefined) return '';
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `bash ls -la`: the tool and its main argument, hidden characters written out (`\x1b`, `\r`), runs of spaces as one. */
export function toolSummary(name: string, input: unknown, maxLength = 120): string {
  const arg = visibleText(mainArgument(name, input)).replace(/ +/g, ' ').trim();
  const shownName = visibleText(name);
  const text = arg ? `${shownName} ${arg}` : shownName;
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}
