import { z } from 'zod';
import { durationToMs } from './duration';
import { isValidRule } from './permission-rule-syntax';
import { McpServers } from './mcp';
import { NotifyInput } from './notify';
import { SandboxInput } from './sandbox';
import { InheritedSettings } from './workspace-settings';
import { isProfileName, unknownProfileMessage, withProfile } from './profiles';
import { PROVIDER_NAMES } from './providers';

/** A Temporal duration string such as `15m`, `30s`, `2h`, `1 day`, or milliseconds as a number. */
export const DurationString = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^\s*\d+(\.\d+)?\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)?\s*$/i, {
      message: 'must be a duration such as "30s", "15m" or "2h"',
    }),
]);

/** zod runs a refinement even when the form failed: that value already has its issue. */
const isReadableDuration = (value: string | number): boolean => DurationString.safeParse(value).success;

export const PermissionMode = z.enum(['default', 'auto', 'plan', 'bypass']);
export type PermissionMode = z.infer<typeof PermissionMode>;

const PermissionRule = z.string().refine(isValidRule, { message: 'must be tool, tool(argument) or tool(prefix*)' });

export const PermissionRules = z.strictObject({
  allow: z.array(PermissionRule).optional(),
  deny: z.array(PermissionRule).optional(),
});
export type PermissionRules = z.infer<typeof PermissionRules>;

export const Budgets = z.strictObject({
  maxTokens: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().optional(),
  maxWallClock: DurationString.optional(),
});

/** Fields the runtime sets itself: `extraBody` may not override them. */
const RESERVED_BODY_FIELDS = ['model', 'messages', 'tools', 'stream', 'stream_options'];

/** Passed to every model request of the run, each provider's adapter writing them its own way (Chat Completions names in brackets). */
export const ModelSettings = z.strictObject({
  /** `temperature` */
  temperature: z.number().min(0).max(2).optional(),
  /** `max_tokens`: without it a local server may generate to the end of its context. */
  maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
  /** `reasoning_effort` */
  reasoningEffort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
  /** Provider-specific request fields, merged into the request body as given (any provider's). */
  extraBody: z
    .record(z.string(), z.unknown())
    .refine((body) => !RESERVED_BODY_FIELDS.some((field) => field in body), { message: `may not set ${RESERVED_BODY_FIELDS.join(', ')}` })
    .optional(),
});
export type ModelSettings = z.output<typeof ModelSettings>;

/** How much of the files a message mentions is attached to it (characters of the numbered text). */
export const AttachmentLimits = z.strictObject({
  maxFiles: z.number().int().min(0).max(50).default(8),
  maxFileChars: z.number().int().positive().max(200_000).default(30_000),
  maxTotalChars: z.number().int().positive().max(1_000_000).default(60_000),
  /** Also attach the local files an attached file imports (`require('./x')`, `from .x import y`), under the same caps, each only when the run's rules let it be read. */
  imports: z.boolean().default(false),
});
export type AttachmentLimits = z.output<typeof AttachmentLimits>;

/**
 * Where a fork starts: another run's conversation up to its step `step` (the STEP column of
 * `bareagent history`; default: its end). `runId`: one run of a continued-as-new chain; default the latest.
 */
export const ForkFrom = z.strictObject({
  workflowId: z.string().trim().min(1, { message: 'must be a non-empty workflow id' }),
  runId: z.string().trim().min(1).optional(),
  step: z.number().int().min(1, { message: 'must be a step number, 1 or more' }).optional(),
  /** Put the workspace back to the origin's checkpoint of that step before the first turn. */
  restoreFiles: z.boolean().optional(),
});
export type ForkFrom = z.infer<typeof ForkFrom>;

/** The one argument of `agentRun` (docs/configuration.md). Unknown fields are rejected. */
export const AgentRunInput = z.strictObject({
  prompt: z.string().trim().min(1, { message: 'must be a non-empty string' }),
  workspace: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  /** Cheaper models for some roles (docs/models.md): compaction summaries, and the subagents' turns. Default: `model`. */
  models: z.strictObject({ compaction: z.string().min(1).optional(), subagent: z.string().min(1).optional() }).optional(),
  /** Whose API serves the run's model calls (docs/models.md); default: the worker's (`BAREAGENT_PROVIDER`, else from its environment). */
  provider: z.enum(PROVIDER_NAMES).optional(),
  /** Replaces the default system prompt (the environment, sandbox facts and tool conventions). */
  systemPrompt: z.string().optional(),
  /** Added after the system prompt (the default or `systemPrompt`), before AGENTS.md. */
  appendSystemPrompt: z.string().optional(),
  maxIterations: z.number().int().positive().max(100_000).default(200),
  permissionMode: PermissionMode.default('default'),
  permissionRules: PermissionRules.default({}),
  approvalTimeout: DurationString.default('15m'),
  stream: z.boolean().default(true),
  budgets: Budgets.default({}),
  agentType: z.enum(['general-purpose', 'explore', 'plan', 'code-review']).default('general-purpose'),
  /** A final answer while background jobs run waits for them (true) or ends the run at once. */
  waitForJobs: z.boolean().default(true),
  /** Set by a parent run for its subagents: nesting depth, where to report, the tools offered. */
  depth: z.number().int().min(0).max(10).default(0),
  parent: z
    .strictObject({ workflowId: z.string().min(1), taskId: z.string().min(1), notify: z.boolean().default(false) })
    .optional(),
  tools: z.array(z.string()).optional(),
  /** Set by a parent run for its subagents: the agent tree's root, whose budgets the whole tree shares. */
  tree: z.strictObject({ rootWorkflowId: z.string().min(1) }).optional(),
  /** false: a question that needs a human is denied at once (background subagents fail closed). */
  askHuman: z.boolean().default(true),
  /** USD per million tokens by model name, over the built-in list prices. */
  prices: z
    .record(
      z.string(),
      z.strictObject({
        inputPerMTok: z.number().min(0),
        outputPerMTok: z.number().min(0),
        cacheReadPerMTok: z.number().min(0).optional(),
        cacheWritePerMTok: z.number().min(0).optional(),
      }),
    )
    .optional(),
  /** A final answer ends the run only when this command passes in the workspace. */
  acceptance: z
    .strictObject({
      command: z.string().min(1),
      timeout: z.number().positive().max(3600).default(300),
      maxAttempts: z.number().int().positive().max(20).default(3),
    })
    .optional(),
  /** After a final answer, stay open this long for a follow-up (`userMessage`); default: end at once. */
  idleTimeout: DurationString.optional(),
  /**
   * A run that records no step, and none of whose activities starts or heartbeats, for this long
   * stops as `stalled` (NoProgress). Time spent waiting for a human, for its jobs or for a
   * subagent does not count. Subagents get their parent's, or 20 minutes when it sets none.
   */
  stallTimeout: DurationString.refine((value) => !isReadableDuration(value) || durationToMs(value) >= 30_000, { message: 'must be at least 30 seconds (heartbeats reach the server every few seconds)' }).optional(),
  compaction: z
    .strictObject({
      thresholdTokens: z.number().int().positive().optional(),
      keepRecentToolResults: z.number().int().min(0).optional(),
      keepRecentMessages: z.number().int().min(1).optional(),
    })
    .default({}),
  /**
   * The task queue of the worker that holds the workspace: tools, background jobs and the
   * acceptance check run there (workers on other machines run the workflow and model calls).
   */
  toolTaskQueue: z.string().min(1).optional(),
  /**
   * What the run's commands may reach beyond the default sandbox: the network (`none` unless the
   * run opts in, within what the worker's operator permits) and extra read-only paths.
   */
  sandbox: SandboxInput.default({ network: 'none', readOnlyPaths: [] }),
  /** The same call failing the same way: warned in the tool round at `warnAt`, the run stopped at `stopAt`. */
  repeatedFailure: z
    .strictObject({ warnAt: z.number().int().positive().default(3), stopAt: z.number().int().positive().default(5) })
    .refine((limits) => limits.warnAt <= limits.stopAt, { message: 'warnAt must not be greater than stopAt' })
    .default({ warnAt: 3, stopAt: 5 }),
  /** MCP tool servers for this run, as in mcp.json; the workspace's `.bareagent/mcp.json` adds its own. */
  mcpServers: McpServers.optional(),
  modelSettings: ModelSettings.optional(),
  /** Put the workspace's AGENTS.md (or CLAUDE.md) into the system prompt. */
  projectInstructions: z.boolean().default(true),
  /**
   * MCP servers a client offered for this run without vouching for them (an editor's, at ACP's
   * `session/new`): they join the run as the workspace's own would, only once the run-start
   * question allows them (or `trustWorkspaceSettings`, or `bypass`), and run as `mcpServers` do.
   */
  clientMcpServers: McpServers.optional(),
  /** The starter vouches for the workspace's own hooks and MCP servers: applied without the run-start question. */
  trustWorkspaceSettings: z.boolean().default(false),
  /** Set by a parent run for its subagents: the settings snapshot of the top-level run's start. */
  workspaceSettings: InheritedSettings.optional(),
  /** Set by a parent run for its subagents: the test files its acceptance check names, read-only to them too (src/loop/acceptance-files.ts). */
  inheritedReadOnlyFiles: z.array(z.string().max(4096)).max(16).optional(),

  /** How many background jobs, and background subagents, may run at once; past it the model gets an error result. */
  concurrency: z
    .strictObject({ backgroundJobs: z.number().int().min(1).max(64).default(4), subagents: z.number().int().min(1).max(64).default(4) })
    .default({ backgroundJobs: 4, subagents: 4 }),

  /** Start from another run's conversation (fork and resume): nothing of it runs again. */
  forkFrom: ForkFrom.optional(),
  /** A snapshot of the workspace at run start and after each tool round that may change it (default true). */
  checkpoints: z.boolean().optional(),
  /** Where to POST when the run waits for a human (the worker's BAREAGENT_NOTIFY_WEBHOOK is told too). */
  notify: NotifyInput.optional(),
  /** A named set of the settings below for a kind of model (src/common/profiles.ts); the input's own fields win. */
  profile: z
    .string()
    .refine(isProfileName, { error: (issue) => unknownProfileMessage(issue.input) })
    .optional(),
  /**
   * `text`: a reply with no tool call is the answer (as always). `tool`: the model gets a
   * `final_answer` tool and every call asks for a tool call (`tool_choice: "required"`); only that
   * call proposes the answer, and text outside a call is kept as a note.
   */
  finalAnswer: z.enum(['text', 'tool']).default('text'),
  /** `at`: `@path` and `@dir/` in the prompt and follow-ups attach the file (numbered) or a listing; `plain`: paths without `@` that exist too; `off`: none. */
  attachMentionedPaths: z.enum(['at', 'plain', 'off']).default('at'),
  attachments: AttachmentLimits.default({ maxFiles: 8, maxFileChars: 30_000, maxTotalChars: 60_000, imports: false }),
  /**
   * The first turn drafts the one JavaScript or Python file the prompt attaches: the model is asked
   * once, with no tools and no system prompt, for the finished file (the request it would get
   * alone), and its code goes to the file through `write_file`, under the guard, before the tool
   * loop goes on from there (src/workflows/draft-turn.ts).
   */
  draftFirst: z.boolean().default(false),
  /**
   * Built-in or worker tools this run does not offer the model, by name (`subagent`,
   * `background_run`): a call of one is refused like that of any tool not offered. It only narrows
   * what the run's type offers; it never adds a tool.
   */
  disallowedTools: z.array(z.string().min(1)).max(64).default([]),
  /** Internal: the state a run carries into its next run across continue-as-new. */
  resume: z.unknown().optional(),
});
export type AgentRunInput = z.input<typeof AgentRunInput>;
export type AgentRunConfig = z.output<typeof AgentRunInput>;

/** Human-readable zod issues: `prompt: must be a non-empty string; foo: unknown field`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join('.') || '(input)';
      if (issue.code === 'unrecognized_keys') {
        const prefix = issue.path.length ? `${path}.` : '';
        return issue.keys.map((key) => `${prefix}${key}: unknown field`).join('; ');
      }
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

export type ParsedInput = { ok: true; config: AgentRunConfig } | { ok: false; message: string };

export function parseAgentRunInput(raw: unknown): ParsedInput {
  if (raw === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, message: 'Invalid agentRun input: (input): expected a JSON object with a "prompt" field' };
  }
  const parsed = AgentRunInput.safeParse(withProfile(raw as Record<string, unknown>));
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, message: `Invalid agentRun input: ${describeIssues(parsed.error)}` };
}
