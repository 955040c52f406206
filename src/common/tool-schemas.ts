import { visibleText } from './visible-text';
import { z } from 'zod';

/**
 * BareAgent's tools, their argument names (part of the public contract: docs/tools.md) and what each one is.
 * Shared by the workflow (argument checks, permission guard) and the provider (JSON schemas).
 */
export const toolSchemas = {
  read_file: z.strictObject({
    file_path: z.string().min(1).describe('Path of the file, relative to the workspace'),
    offset: z.number().int().min(0).default(0).describe('Line to start from (0-based)'),
    limit: z.number().int().positive().optional().describe('Maximum number of lines to return'),
  }),
  write_file: z.strictObject({
    file_path: z.string().min(1).describe('Path of the file, relative to the workspace'),
    content: z.string().describe('The whole new content of the file'),
  }),
  edit_file: z.strictObject({
    file_path: z.string().min(1).describe('Path of the file, relative to the workspace'),
    old_text: z.string().min(1).describe('Exact text to replace (its first occurrence)'),
    new_text: z.string().describe('Replacement text'),
  }),
  glob: z.strictObject({
    pattern: z.string().min(1).describe('Glob pattern such as "src/**/*.ts"'),
    path: z.string().default('.').describe('Directory to search from, relative to the workspace'),
  }),
  grep: z.strictObject({
    pattern: z.string().min(1).describe('Regular expression to search for'),
    path: z.string().default('.').describe('File or directory to search, relative to the workspace'),
    include: z.string().default('').describe('Only files whose name matches this glob, e.g. "*.ts"'),
  }),
  bash: z.strictObject({
    command: z.string().min(1).describe('Shell command, run in the workspace'),
    timeout: z.number().positive().max(3600).default(30).describe('Seconds before the command is killed'),
  }),
  background_run: z.strictObject({
    command: z.string().min(1).describe('Shell command to run in the background, in the workspace'),
    timeout: z.number().positive().max(3600).default(30).describe('Seconds before the job is killed'),
    task_id: z
      .string()
      // Spelled out, not \w: grammar-constrained servers (llama.cpp) cannot compile escape classes.
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1-64 letters, digits, ".", "_" or "-"' })
      .optional()
      .describe('A name for the job (default: job-<n>)'),
  }),
  subagent: z.strictObject({
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
  final_answer: z.strictObject({
    answer: z.string().min(1).describe('The answer to the task, complete: what the user reads'),
    changes: z.string().optional().describe('For a coding task: which files you changed and how'),
    checks: z.string().optional().describe('For a coding task: how you checked the change (the command you ran and its result)'),
  }),
} as const;

export type ToolName = keyof typeof toolSchemas;
export type ToolArgs<N extends ToolName> = z.output<(typeof toolSchemas)[N]>;

export const toolDescriptions: Record<ToolName, string> = {
  read_file: 'Read a text file of the workspace; lines come back numbered "1: ...".',
  write_file: 'Create or overwrite a file of the workspace with the given content.',
  edit_file: 'Replace the first occurrence of old_text with new_text in a file of the workspace.',
  glob: 'List files of the workspace matching a glob pattern.',
  grep: 'Search file contents of the workspace with a regular expression (at most 1000 matches).',
  bash: 'Run a shell command in the workspace and return its output.',
  background_run: 'Start a shell command in the background and return its task id at once; its result arrives later as a notification.',
  subagent: 'Hand a self-contained task to a subagent with its own history and tools; returns its final answer.',
  final_answer: 'Finish the task: call this alone, once the work is done and checked, with your answer. Nothing else ends the task.',
};

export const TOOL_NAMES = Object.keys(toolSchemas) as ToolName[];

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

export const toolEffects: Record<ToolName, ToolEffect> = {
  read_file: 'read',
  glob: 'read',
  grep: 'read',
  write_file: 'repeatable',
  edit_file: 'once',
  bash: 'once',
  background_run: 'workflow',
  subagent: 'workflow',
  final_answer: 'answer',
};

/** The built-in tools of one effect. */
export function toolsWith(effect: ToolEffect): ReadonlySet<string> {
  return new Set(TOOL_NAMES.filter((name) => toolEffects[name] === effect));
}

/** Tools that only read. */
export const READ_ONLY_TOOLS = toolsWith('read');
/** Tools run by the workflow itself (child workflows), not by a tool activity. */
export const WORKFLOW_TOOL_NAMES = toolsWith('workflow');

/** The tool a run with `finalAnswer: "tool"` ends with: taken by the loop itself, never dispatched. */
export const FINAL_ANSWER_TOOL = 'final_answer';

export function isToolName(name: string): name is ToolName {
  return Object.prototype.hasOwnProperty.call(toolSchemas, name);
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
