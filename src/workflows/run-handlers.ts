import type { HookSpec } from '../common/hooks';
import type { PinnedFile } from '../common/pinned-files';
import { log, setHandler } from '@temporalio/workflow';
import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { describeIssues, type AgentRunConfig } from '../common/input';
import { UserMessageInput, type RunStatus } from '../common/wire';
import { formatRemaining, type BudgetLimits } from '../loop/budget';
import { hasTreeBudget, treeBudgetState } from '../loop/tree-budget';
import { reservedTotal } from '../loop/tree-reservation';
import { checkpointsQuery, eventsQuery, messagesQuery, statusQuery, stepsQuery, userMessageSignal } from '../common/contract';
import { checkpointsView } from './checkpoints';
import type { HumanChannel } from './human-channel';
import type { JobBoard } from './job-board';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';
import { eventsSince } from './stream-events';
import type { ToolRound } from './tool-round';

export interface RunView {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  stream: WorkflowStream;
  report: RunReporter;
  human: HumanChannel;
  board: JobBoard;
  tools: ToolRound;
  limits: BudgetLimits;
  /** The model that answered the run's last call, when its input names none. */
  answeredModel?: () => string | undefined;
  answeredProvider?: () => string | undefined;
}

/** The run as people read it (queries) and what they send it besides permission answers (follow-ups). */
export function setRunHandlers(run: RunView): void {
  setHandler(messagesQuery, () => run.state.messages);
  setHandler(stepsQuery, () => run.state.steps);
  setHandler(checkpointsQuery, () => checkpointsView(run.state));
  setHandler(eventsQuery, (fromOffset = 0) => eventsSince(run.stream, fromOffset));
  setHandler(statusQuery, () => runStatus(run));
  setHandler(userMessageSignal, (raw) => {
    const parsed = UserMessageInput.safeParse(raw);
    if (!parsed.success) log.warn(`userMessage signal ignored: ${describeIssues(parsed.error)}`);
    else run.state.followUps.push(parsed.data.text);
  });
}

function runStatus({ config, state, report, human, board, tools, limits, answeredModel, answeredProvider }: RunView): RunStatus {
  return {
    phase: report.phase,
    iteration: state.budget.iterations,
    maxIterations: config.maxIterations,
    pendingPermissions: [...human.pending(), ...board.pendingChildQuestions().map(({ open: _open, ...question }) => question)],
    backgroundJobs: board.list(),
    usage: { inputTokens: state.budget.inputTokens, outputTokens: state.budget.outputTokens },
    costUsd: state.budget.costUsd,
    unpricedCalls: state.budget.unpricedCalls,
    model: config.model ?? answeredModel?.() ?? null,
    provider: answeredProvider?.() ?? config.provider ?? null,
    budgetLeft: formatRemaining(state.budget, limits, Date.now()),
    queuedFollowUps: state.followUps.length,
    sandbox: tools.sandboxStatus(),
    ...(state.instructions ? { projectInstructions: { files: state.instructions.files, ...(state.instructions.truncated ? { truncated: true } : {}), ...(state.instructions.error ? { error: state.instructions.error } : {}) } } : {}),
    ...(state.hooks ? { hooks: { commands: state.hooks.hooks.map((h) => `${h.event}${h.matcher ? `(${h.matcher})` : ''}: ${h.command}`), ...pinnedOf(state.hooks.hooks), ...(state.hooks.errors ? { errors: state.hooks.errors } : {}) } } : {}),
    ...(state.workspaceSettings ? { workspaceSettings: state.workspaceSettings } : {}),
    ...(state.usageEstimated ? { usageEstimated: true as const } : {}),
    ...(!config.tree && hasTreeBudget(limits) ? { treeBudget: treeLedgerView(state) } : {}),
    ...(state.sessionRules?.length ? { sessionRules: state.sessionRules } : {}),
    ...(state.mcp ? { mcpServers: state.mcp.servers.map((s) => ({ name: s.name, tools: s.tools.length, ...(s.pins ? { pins: s.pins } : {}), ...(s.error ? { error: s.error } : {}) })) } : {}),
    ...(state.forkedFrom ? { forkedFrom: state.forkedFrom } : {}),
    ...(state.mayHaveRun?.length ? { mayHaveRun: state.mayHaveRun } : {}),
  };
}

function treeLedgerView(state: RunState): NonNullable<RunStatus['treeBudget']> {
  const tree = state.tree ?? { members: {} };
  const used = treeBudgetState(state.budget, tree.members);
  const reserved = reservedTotal(tree.reservations ?? {});
  return {
    usedTokens: used.inputTokens + used.outputTokens,
    usedCostUsd: used.costUsd,
    reservedTokens: reserved.tokens,
    callsUnderWay: Object.keys(tree.reservations ?? {}).length,
    overrunTokens: tree.overrunTokens ?? 0,
    overrunCostUsd: tree.overrunCostUsd ?? 0,
  };
}

/** The workspace files the hooks run, pinned at the run's start: `status` shows each once. */
function pinnedOf(hooks: readonly HookSpec[]): { pinned?: PinnedFile[] } {
  const pinned = new Map<string, PinnedFile>();
  for (const hook of hooks) for (const pin of hook.pins ?? []) pinned.set(pin.path, pin);
  return pinned.size ? { pinned: [...pinned.values()] } : {};
}
