import { patched, workflowInfo } from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { AgentRunConfig } from '../common/input';
import type { SandboxRequest } from '../common/sandbox';
import { agentType, toolsFor } from '../loop/agent-types';
import type { BudgetLimits } from '../loop/budget';
import { DEFAULT_COMPACTION } from '../loop/compaction';
import { parseRule } from '../loop/permission-rules';
import { createPolicy } from '../loop/permissions';
import { runGuard } from '../loop/run-guard';
import type { Transition } from '../loop/transitions';
import type { CompletionContext } from './completion';
import { HumanChannel } from './human-channel';
import { JobBoard } from './job-board';
import type { MentionContext } from './mentions';
import { ModelTurn } from './model-turn';
import { RunHooks } from './run-hooks';
import { setRunHandlers } from './run-handlers';
import { RunReporter } from './run-reporter';
import { initialRunState, type RunState } from './run-state';
import { sandboxRequest } from './sandbox-request';
import { StallWatchdog } from './stall-watchdog';
import { ToolRound } from './tool-round';
import { TreeBudget } from './tree-budget';
import { TurnCancel } from './turn-cancel';
import { askRunPatches, type RunPatches } from './run-patches';
import { DISALLOWED_TOOLS } from './patches';

export type RunConfig = Omit<AgentRunConfig, 'resume'>;

/** What the loop works with: the run's config and state, and the collaborators that share them. */
export interface RunParts {
  config: RunConfig;
  state: RunState;
  /** The first run of a conversation (not one continued as new): it does the run-start work. */
  fresh: boolean;
  workflowId: string;
  stream: WorkflowStream;
  report: RunReporter;
  board: JobBoard;
  human: HumanChannel;
  tree: TreeBudget;
  tools: ToolRound;
  model: ModelTurn;
  completion: CompletionContext;
  mentions: MentionContext;
  watchdog: StallWatchdog | undefined;
  limits: BudgetLimits;
  sandbox: SandboxRequest;
  turns: TurnCancel;
  /** The tools the run offers the model. */
  offered: ReadonlySet<string>;
  patches: RunPatches;
}

/**
 * Builds a run's collaborators from its config and its state (fresh, or carried across
 * continue-as-new), and sets its query, signal and update handlers. What they share lives in
 * `state`, so the next run gets it; each collaborator reaches the others only through what it is
 * handed here.
 */
export function wireRun(config: RunConfig, carried: RunState | undefined): RunParts {
  const workflowId = workflowInfo().workflowId;
  const state = carried ?? initialRunState(config.prompt, Date.now());
  const stream = new WorkflowStream(carried?.stream);
  const { allow = [], deny } = config.permissionRules;
  const policy = createPolicy(config.permissionMode, { allow: [...allow, ...(state.sessionRules ?? [])], ...(deny ? { deny } : {}) });
  const guard = runGuard(config.sandbox.writableGit === true);
  const type = agentType(config.agentType);
  const offered = offeredTools(config.tools ?? (type ? toolsFor(type, config.depth) : []), config.disallowedTools);
  const limits: BudgetLimits = { maxIterations: config.maxIterations, ...config.budgets };
  const sandbox = sandboxRequest(config);
  const patches = askRunPatches(config, sandbox, offered);
  const report = new RunReporter(stream, state, limits, config.maxIterations);
  const watchdog = config.stallTimeout === undefined ? undefined : new StallWatchdog(config.stallTimeout, () => report.phase);
  if (watchdog) report.onStep = () => watchdog.progressed();
  const record = (transition: Transition) => report.record(transition, report.budget());
  // Waiting after an answer (or a cancelled turn) or for jobs, with no message queued: no turn to cancel.
  const turns = new TurnCancel(() => (report.phase === 'idle' || report.phase === 'waiting_for_jobs') && state.followUps.length === 0);
  const hooks = new RunHooks({ config, hooks: () => state.hooks, sandbox, workflowId, record });
  const human = new HumanChannel({
    config,
    workflowId,
    publish: (event) => report.publish(event),
    setPhase: (phase) => report.setPhase(phase),
    attributes: report.attributes,
    record,
    step: () => state.budget.iterations,
    waiting: (request) => hooks.waiting(request),
    allowForRun: (rule) => {
      state.sessionRules = [...(state.sessionRules ?? []), rule];
      policy.allow.push(parseRule(rule));
    },
    turnCancelling: () => turns.cancelling,
  });
  const board = new JobBoard(carried?.jobs, (change) => human.onChildQuestion(change.question));
  const tree = new TreeBudget({ config, state, workflowId, limits });
  const tools = new ToolRound({ config, state, report, human, board, workflowId, offered, sandbox, policy, guard, hooks, tree, watchdog, acceptanceFilesReadOnly: patches.acceptanceFilesReadOnly });
  const model = new ModelTurn({ config, state, report, offered, compaction: { ...DEFAULT_COMPACTION, ...config.compaction }, tree });
  const completion: CompletionContext = { config, state, board, report, hooks, syntaxGate: patches.syntaxGate };
  setRunHandlers({ config, state, stream, report, human, board, tools, limits, answeredModel: () => model.answeredModel, answeredProvider: () => model.answeredProvider });
  const mentions: MentionContext = { config, state, report, policy, guard, offered };
  return { config, state, fresh: carried === undefined, workflowId, stream, report, board, human, tree, tools, model, completion, mentions, watchdog, limits, sandbox, turns, offered, patches };
}

/** The run's tools less those its input disallows; a run of 0.3.0 (no marker) offered them all. */
function offeredTools(tools: readonly string[], disallowed: readonly string[]): ReadonlySet<string> {
  if (disallowed.length === 0 || !tools.some((tool) => disallowed.includes(tool)) || !patched(DISALLOWED_TOOLS)) return new Set(tools);
  return new Set(tools.filter((tool) => !disallowed.includes(tool)));
}
