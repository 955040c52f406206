import { executeChild, ParentClosePolicy } from '@temporalio/workflow';
import type { AgentRunConfig, AgentRunInput } from '../common/input';
import type { BackgroundJobInput } from '../common/jobs';
import type { ToolOutcome } from '../common/tool-outcome';
import type { ToolArgs } from '../common/tool-schemas';
import type { AgentRunResult } from '../common/wire';
import type { InheritedSettings } from '../common/workspace-settings';
import { agentType, MAX_SUBAGENT_DEPTH, toolsFor } from '../loop/agent-types';
import type { JobBoard } from './job-board';
import { sandboxRequest } from './sandbox-request';
import { attempt } from './failures';
import type { TreeBudget } from './tree-budget';
import { DEFAULT_SUBAGENT_STALL_TIMEOUT, type StallWatchdog } from './stall-watchdog';

export interface WorkflowToolContext {
  board: JobBoard;
  tree: TreeBudget;
  config: AgentRunConfig;
  workflowId: string;
  /** The settings snapshot of the top-level run's start, handed down so that no subagent reads a settings file. */
  settings?: InheritedSettings | undefined;
  watchdog?: StallWatchdog | undefined;
}

/** The error result past a limit: what runs now, what the model may do about it. Nothing is started. */
function overLimit(what: string, limit: number, field: string): ToolOutcome {
  return {
    ok: true,
    isError: true,
    output: `Refused: ${limit} ${what} already running, the most this run allows at once (input concurrency.${field}). Wait for one to finish (its result arrives as a notification), then try again.`,
  };
}

/** `background_run`: submits a `backgroundJob` child and answers at once; its result comes back as a notification. */
export async function backgroundRun(args: ToolArgs<'background_run'>, ctx: WorkflowToolContext): Promise<ToolOutcome> {
  const taskId = args.task_id ?? ctx.board.nextTaskId();
  if (ctx.board.isRunning(taskId)) return { ok: true, output: `Background task already running: ${taskId}`, isError: true };
  const jobLimit = ctx.config.concurrency.backgroundJobs;
  if (ctx.board.runningOf('command') >= jobLimit) return overLimit('background jobs are', jobLimit, 'backgroundJobs');
  const input: BackgroundJobInput = {
    parentWorkflowId: ctx.workflowId,
    taskId,
    command: args.command,
    timeoutSeconds: args.timeout,
    sandbox: sandboxRequest(ctx.config),
    ...(ctx.config.workspace ? { workspace: ctx.config.workspace } : {}),
    ...(ctx.config.toolTaskQueue ? { toolTaskQueue: ctx.config.toolTaskQueue } : {}),
  };
  await ctx.board.start({ taskId, kind: 'command', description: args.command }, 'backgroundJob', [input]);
  return { ok: true, output: `Submitted background task ${taskId}` };
}

/** `subagent`: a child agentRun with its own history, its type's tools and turns, depth bounded. */
export async function subagent(args: ToolArgs<'subagent'>, ctx: WorkflowToolContext): Promise<ToolOutcome> {
  const type = agentType(args.agent_type);
  if (!type) {
    return { ok: false, errorType: 'InvalidArguments', message: `subagent: unknown agent_type "${args.agent_type}" (general-purpose, explore, plan, code-review)` };
  }
  const depth = ctx.config.depth + 1;
  if (depth > MAX_SUBAGENT_DEPTH) {
    return { ok: true, output: `Subagent refused: recursion depth ${depth} exceeds limit ${MAX_SUBAGENT_DEPTH}`, isError: true };
  }
  const subagentLimit = ctx.config.concurrency.subagents;
  if (ctx.board.runningOf('subagent') >= subagentLimit) return overLimit('subagents are', subagentLimit, 'subagents');
  const share = ctx.tree.forChild(args.budget, Date.now());
  if ('refused' in share) return { ok: true, output: share.refused, isError: true };
  const taskId = ctx.board.nextTaskId('sub');
  const { config } = ctx;
  // The test files the run's acceptance check (or its parent's) names: its subagents may not change them either.
  const readOnlyFiles = sandboxRequest(config).readOnlyFiles;
  const input: AgentRunInput = {
    prompt: args.task,
    agentType: type.name as AgentRunInput['agentType'],
    maxIterations: type.maxTurns,
    permissionMode: type.permissionMode ?? config.permissionMode,
    permissionRules: config.permissionRules,
    approvalTimeout: config.approvalTimeout,
    sandbox: config.sandbox,
    stream: config.stream,
    waitForJobs: config.waitForJobs,
    depth,
    tools: toolsFor(type, depth),
    // What the operator took from the run, its subagents do not get back.
    ...(config.disallowedTools.length > 0 ? { disallowedTools: config.disallowedTools } : {}),
    // In the background nobody watches: a question is denied at once (fail closed).
    askHuman: !args.run_in_background,
    parent: { workflowId: ctx.workflowId, taskId, notify: args.run_in_background },
    ...(config.workspace ? { workspace: config.workspace } : {}),
    // A subagent's turns use `models.subagent` when the run names one; its compaction, the run's compaction model.
    ...(config.models?.subagent ?? config.model ? { model: config.models?.subagent ?? config.model } : {}),
    ...(config.models?.compaction ? { models: { compaction: config.models.compaction } } : {}),
    ...(config.provider ? { provider: config.provider } : {}),
    // Priced and capped as the parent is: the tree's cost budget counts every member's calls at the same prices.
    ...(config.prices ? { prices: config.prices } : {}),
    ...(config.modelSettings ? { modelSettings: config.modelSettings } : {}),
    // The operator's additions hold for the subagents too; each builds its own default prompt for its type.
    ...(config.appendSystemPrompt ? { appendSystemPrompt: config.appendSystemPrompt } : {}),
    ...(config.toolTaskQueue ? { toolTaskQueue: config.toolTaskQueue } : {}),
    ...(config.notify ? { notify: config.notify } : {}),
    // Nobody may be watching a subagent: one that stops making progress ends as a failed call or job.
    stallTimeout: config.stallTimeout ?? DEFAULT_SUBAGENT_STALL_TIMEOUT,
    ...(ctx.settings ? { workspaceSettings: ctx.settings } : {}),
    ...(readOnlyFiles ? { inheritedReadOnlyFiles: readOnlyFiles } : {}),
    ...share,
  };
  if (args.run_in_background) {
    await ctx.board.start({ taskId, kind: 'subagent', description: `${type.name}: ${args.task}` }, 'agentRun', [input]);
    return { ok: true, output: `Submitted background task ${taskId}` };
  }
  const run = () =>
    executeChild<(input: AgentRunInput) => Promise<AgentRunResult>>('agentRun', {
      workflowId: `${ctx.workflowId}.${taskId}`,
      args: [input],
      staticSummary: `subagent (${type.name}): ${args.task}`.slice(0, 200),
      // Cancelled rather than terminated with a terminated run: it then cancels its own jobs and children.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
  const child = await attempt(() => (ctx.watchdog ? ctx.watchdog.whileChildRuns(run) : run()));
  return child.ok ? { ok: true, output: child.value.text } : { ok: false, errorType: child.type, message: child.message };
}
