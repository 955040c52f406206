import { draftTurn } from './draft-turn';
import { allHandlersFinished, CancellationScope, condition, ContinueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import { parseAgentRunInput, type AgentRunInput } from '../common/input';
import type { JobFinished } from '../common/jobs';
import type { AgentRunResult, BudgetSnapshot } from '../common/wire';
import { countIteration } from '../loop/budget';
import { budgetStop } from '../loop/budget-stop';
import { uniqueToolCallIds } from '../loop/tool-call-ids';
import type { Stop, Transition } from '../loop/transitions';
import './shell-quote-loader';
import { notifyParent } from './background-job';
import { finish, proposeCompletion, waitAfter } from './completion';
import { startFromOrigin, showOrigin } from './fork-start';
import { handOver } from './hand-over';
import { readNestedInstructionsAfter } from './project-instructions';
import { readRunStart } from './run-start';
import { WORKSPACE_SETTINGS_REQUEST, WORKSPACE_SETTINGS_TOOL } from './workspace-settings';
import { startCheckpoints } from './checkpoints';
import { workspaceMoved } from './workspace-path';
import { takeReply } from './reply-step';
import { takeReadAhead } from './read-ahead';
import { takeFinalAnswer } from './final-answer';
import { attachToPrompt, injectFinishedJobs, takeFollowUps } from './turn-inputs';
import { describeActivityFailure, invalidInput, stopFailure } from './failures';
import { parseRunState } from './run-state';
import { wireRun, type RunParts } from './run-wiring';
import { CANCELLED_TOOL_RESULT, closeCancelledTurn } from '../loop/cancelled-turn';
import { durationToMs } from '../common/duration';

/** One agent run: BareAgent's `agent_loop()` as a durable workflow (ARCHITECTURE.md, "The life of one iteration"). */
export async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
  const parsed = parseAgentRunInput(input);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const { resume, ...config } = parsed.config;
  if (resume === undefined) return new AgentRun(wireRun(config, undefined)).run();
  const carried = parseRunState(resume);
  if (!carried.ok) throw invalidInput(carried.message);
  return new AgentRun(wireRun(config, carried.state)).run();
}

class AgentRun {
  constructor(private readonly parts: RunParts) {}

  async run(): Promise<AgentRunResult> {
    const { config, state, fresh, workflowId, report, sandbox, mentions } = this.parts;
    report.attributes.set({ status: 'running', waitingForHuman: false, ...(config.model ? { model: config.model } : {}) });
    showOrigin(state, report);
    // As the input gave it: the settings read below replaces it with the path it resolved.
    const givenWorkspace = config.workspace;
    try {
      // Side by side: the run-start reads keep their one workflow task with the first model call.
      if (fresh) {
        await Promise.all([
          startCheckpoints(config, state, workflowId),
          readRunStart(config, sandbox, state, (input) => this.askAboutSettings(input)),
        ]);
        const moved = workspaceMoved(state);
        if (moved) throw invalidInput(moved);
      }
      // Only a fresh run loads its origin: after continue-as-new the conversation is carried.
      if (config.forkFrom && fresh) await startFromOrigin(config.forkFrom, config.prompt, { workspace: config.workspace, given: givenWorkspace }, state, report, { config, workflowId });
      // The path a fork was authorised for is the one its tools use from now on (carried in the config across continue-as-new).
      if (state.workspacePath !== undefined) config.workspace = state.workspacePath;
      // The prompt's mentioned files, once: a run continued as new carries the message as it was sent.
      if (fresh) await attachToPrompt(mentions);
      const result = await this.watchedLoop();
      await this.end({ taskId: config.parent?.taskId ?? '', status: 'done', summary: result.text });
      return result;
    } catch (err) {
      // Continuing as new is not an end: the jobs, the parent and the followers carry on with the next run.
      if (err instanceof ContinueAsNew) throw err;
      const cancelled = isCancellation(err);
      await CancellationScope.nonCancellable(async () => {
        if (cancelled) report.record({ kind: 'stop', reason: 'cancelled', detail: 'cancelled by the user' }, report.budget());
        else report.failed(err);
        const { type, message } = describeActivityFailure(err);
        await this.end({ taskId: config.parent?.taskId ?? '', status: cancelled ? 'cancelled' : 'failed', summary: `${type}: ${message}` });
      });
      throw err;
    }
  }

  /**
   * The loop, under the stall watchdog when the run has a `stallTimeout`: a stall cancels what the
   * loop waits on (an activity no worker runs, a call that never returns) and ends the run with its stop.
   */
  private async watchedLoop(): Promise<AgentRunResult> {
    const { report, watchdog } = this.parts;
    if (!watchdog) return this.loop();
    const scope = new CancellationScope();
    let stall: Stop | undefined;
    watchdog.stalled().then(
      (stop) => {
        stall = stop;
        scope.cancel();
      },
      () => undefined, // the run itself was cancelled: the loop reports that
    );
    try {
      return await scope.run(() => this.loop());
    } catch (err) {
      if (stall && isCancellation(err)) return this.stopRun(stall, report.budget());
      throw err;
    }
  }

  /** The loop: each phase ends in a transition (src/loop/transitions.ts), recorded as one step; a stop ends the run. */
  private async loop(): Promise<AgentRunResult> {
    const { config, state, report, board, tree, mentions, limits } = this.parts;
    for (;;) {
      const taken = await takeFollowUps(mentions);
      if (taken) report.record(taken, report.budget());
      const ownBudget = budgetStop(state.budget, limits, config.maxIterations, Date.now());
      const overBudget = ownBudget ? tree.named(ownBudget) : await tree.stop(Date.now());
      if (overBudget) return this.stopRun(overBudget, report.budget());
      const before = report.budget();
      state.budget = countIteration(state.budget);
      injectFinishedJobs(state, board, report);
      const turn = await this.parts.turns.run(() => this.turn(before));
      // A turn that ended the run despite the signal (its answer or stop came first) ends it.
      if (turn.done) return turn.done;
      if (turn.cancelled !== undefined) {
        const ended = await this.afterCancelledTurn(turn.cancelled, before);
        if (ended) return ended;
      }
    }
  }

  /** One turn of the loop, from the model call to its settled transition: what the `cancelTurn` signal stops. */
  private async turn(before: BudgetSnapshot): Promise<AgentRunResult | undefined> {
    const { config, state, stream, report, board, tools, model, completion } = this.parts;
    const compactedFrom = report.budget();
    const compacted = await model.compact();
    if (compacted) report.record(compacted, compactedFrom);
    const response = (await draftTurn({ config, state, offered: this.parts.offered, model, readOnly: this.parts.sandbox.readOnlyFiles ?? [], patched: this.parts.patches.draftFirst }, this.iteration)) ?? (await model.call());
    if ('kind' in response) return this.stopRun(response, before);
    response.toolCalls = uniqueToolCallIds(response.toolCalls, this.iteration);
    const readAhead = takeReadAhead(response);
    if (!response.streamed && response.text) report.publish({ type: 'text', step: this.iteration, attempt: 1, delta: response.text });
    const classified = takeReply(state, response);
    // With the final answer as a tool, only a final_answer call answers; a text reply is a note.
    const { reply, calls, results } = config.finalAnswer === 'tool' ? takeFinalAnswer(state, response, classified) : { reply: classified, calls: response.toolCalls, results: [] };
    const transition =
      reply === 'tool_calls'
        ? await tools.run(calls, response.toolCallsShown ?? response.streamed, results, readAhead)
        : reply === 'answer'
          ? await proposeCompletion(completion)
          : reply;
    const result = await this.settle(transition, before);
    if (result) return result;
    if (reply === 'tool_calls' && config.projectInstructions) await readNestedInstructionsAfter(calls, config, state);
    if (reply === 'tool_calls' && workflowInfo().continueAsNewSuggested && !this.childrenHoldHandOver()) {
      report.record({ kind: 'continue_as_new', historyLength: workflowInfo().historyLength }, report.budget());
      await handOver(stream, config, state, board);
    }
    return undefined;
  }

  /**
   * A turn the `cancelTurn` signal stopped: each tool call of its reply gets a result (what it gave,
   * or that it was cancelled), the workspace its checkpoint, the step its record; then the run waits
   * for the next message as after an answer. A run that takes no follow-ups (no `idleTimeout`), or
   * gets none in time, ends with the `cancelled` stop.
   */
  private async afterCancelledTurn(reason: string, before: BudgetSnapshot): Promise<AgentRunResult | undefined> {
    const { config, state, report, tools } = this.parts;
    const round = tools.takeInterrupted();
    const { message, cancelled } = closeCancelledTurn(state.messages, round?.results ?? []);
    for (const call of cancelled) report.publish({ type: 'tool_result', step: this.iteration, id: call.id, name: call.name, isError: true, preview: CANCELLED_TOOL_RESULT });
    state.messages.push(message);
    if (round) await tools.checkpointInterrupted(round.calls);
    const timeout = config.idleTimeout;
    report.record({ kind: 'turn_cancelled', reason, cancelledCalls: cancelled.map((call) => call.name), ...(timeout !== undefined ? { timeout } : {}) }, before);
    if (state.followUps.length > 0) return undefined;
    const ended: Stop = { kind: 'stop', reason: 'cancelled', message: `Cancelled: the turn was cancelled (${reason})`, detail: 'the turn was cancelled and no follow-up came' };
    if (timeout === undefined) return this.stopRun({ ...ended, detail: 'the turn was cancelled; the run takes no follow-ups (no idleTimeout)' }, report.budget());
    report.setPhase('idle');
    if (await condition(() => state.followUps.length > 0, durationToMs(timeout))) return undefined;
    return this.stopRun({ ...ended, detail: `the turn was cancelled and no follow-up came within ${timeout}` }, report.budget());
  }

  /**
   * Jobs and subagents end with the run (parent close policy REQUEST_CANCEL), and the server
   * applies that policy on continue-as-new too: hand over only once none is running. Asked here,
   * not when the run is wired, so that a run already under way when this shipped also waits for its new jobs.
   */
  private childrenHoldHandOver(): boolean {
    return this.parts.board.blocksContinueAsNew();
  }

  /** One step record per transition; what follows a proposal (waiting for jobs, idle) comes after its record. */
  private async settle(transition: Transition, before: BudgetSnapshot): Promise<AgentRunResult | undefined> {
    const { report, completion } = this.parts;
    if (transition.kind === 'stop') return this.stopRun(transition, before);
    report.record(transition, before);
    const next = await waitAfter(completion, transition);
    return next ? this.settle(next, before) : undefined;
  }

  /**
   * Where every stop the loop decides ends the run: a last step record, then the answer, or a
   * non-retryable failure with { reason, detail, budget, stepId } in its details.
   */
  private stopRun(stop: Stop, before: BudgetSnapshot): AgentRunResult {
    const { report, completion } = this.parts;
    if (stop.reason === 'final_answer') {
      report.record(stop, before);
      return finish(completion);
    }
    const budget = report.budget();
    const record = report.record(stop, budget);
    throw stopFailure(stop.message ?? '', { reason: stop.reason, detail: stop.detail ?? '', budget, stepId: record.step_id });
  }

  private get iteration(): number {
    return this.parts.state.budget.iterations;
  }

  /** The run-start question about the workspace's own settings: a pending permission request like any other. */
  private askAboutSettings(input: Record<string, unknown>): Promise<{ allowed: boolean; timedOut: boolean }> {
    const call = { id: WORKSPACE_SETTINGS_REQUEST, name: WORKSPACE_SETTINGS_TOOL, input };
    return this.parts.human.answer(call, input, { behavior: 'ask', reason: 'the workspace brings hooks or MCP servers of its own' }, { forRun: false });
  }

  /**
   * However the run ends: its unfinished jobs are cancelled, a background subagent reports to its
   * parent, and followers parked on the stream get the last events before the run closes.
   */
  private async end(outcome: JobFinished): Promise<void> {
    const { config, stream, board, tree } = this.parts;
    tree.close();
    await board.cancelAll();
    if (config.parent?.notify) await notifyParent(config.parent.workflowId, outcome);
    stream.detachPollers();
    await condition(allHandlersFinished);
  }
}
