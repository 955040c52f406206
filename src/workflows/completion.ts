import { condition } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import type { AgentRunResult } from '../common/wire';
import { durationToMs } from '../common/duration';
import type { Transition } from '../loop/transitions';
import { runAcceptance, runSyntaxCheck } from './acceptance';
import { MAX_SYNTAX_REFUSALS, changedSourceFiles, syntaxRefusal } from '../loop/syntax-check';
import type { JobBoard } from './job-board';
import type { RunHooks } from './run-hooks';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';

export interface CompletionContext {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  board: JobBoard;
  report: RunReporter;
  hooks?: RunHooks;
  /** Whether a final answer waits for the changed files to parse (`RunPatches`). */
  syntaxGate(): boolean;
}

/**
 * A final answer is a proposal. It ends the run only when no job runs (or the
 * run does not wait for jobs), the acceptance check passes and no follow-up is queued.
 */
export async function proposeCompletion({ config, state, board, report, hooks, syntaxGate }: CompletionContext): Promise<Transition> {
  if (config.waitForJobs && board.hasRunning()) {
    report.setPhase('waiting_for_jobs');
    return { kind: 'waiting_for_jobs', jobs: board.list().map((job) => job.taskId) };
  }
  const refused = await hooks?.stop(state.lastText, state.stopRefused ?? false);
  // Once per run, so that a hook that always refuses cannot keep a run from ending.
  if (refused !== undefined && !state.stopRefused) {
    state.stopRefused = true;
    state.messages.push({ role: 'user', content: `A Stop hook refused to let the run end: ${refused}\nThe task is not done yet: continue.` });
    return { kind: 'stop_refused', reason: refused };
  }
  // Asked only where the run changed a file the gate checks: a run without one commands nothing new.
  if (changedSourceFiles(state.messages).length > 0 && syntaxGate()) {
    report.setPhase('checking_acceptance');
    const syntax = await runSyntaxCheck(config, state);
    if (syntax && !syntax.passed) {
      state.syntaxRefusals = (state.syntaxRefusals ?? 0) + 1;
      if (state.syntaxRefusals > MAX_SYNTAX_REFUSALS) {
        return { kind: 'stop', reason: 'acceptance_failed', message: `Syntax check failed ${state.syntaxRefusals} times: files the run changed do not parse`, detail: syntax.output.slice(0, 500) };
      }
      state.messages.push({ role: 'user', content: syntaxRefusal(syntax.output, state.syntaxRefusals) });
      return { kind: 'acceptance_failed', attempts: state.syntaxRefusals, output: syntax.output };
    }
  }
  if (config.acceptance) {
    report.setPhase('checking_acceptance');
    const check = await runAcceptance(config);
    if (check && !check.passed) {
      state.acceptanceAttempts += 1;
      if (state.acceptanceAttempts >= config.acceptance.maxAttempts) {
        const message = `Acceptance check failed ${state.acceptanceAttempts} times: ${config.acceptance.command}`;
        return { kind: 'stop', reason: 'acceptance_failed', message, detail: check.output.slice(0, 500) };
      }
      state.messages.push({
        role: 'user',
        content: `The acceptance check \`${config.acceptance.command}\` failed (${state.acceptanceAttempts} of ${config.acceptance.maxAttempts}); the task is not done yet:\n${check.output.slice(-4000)}\nFix it with your tools: read the files involved, change them, and run \`${config.acceptance.command}\` yourself before you answer again.`,
      });
      return { kind: 'acceptance_failed', attempts: state.acceptanceAttempts, output: check.output };
    }
  }
  if (state.followUps.length > 0) return { kind: 'next_turn', followUpQueued: true };
  if (config.idleTimeout !== undefined) {
    report.setPhase('idle');
    return { kind: 'idle', timeout: config.idleTimeout };
  }
  return { kind: 'stop', reason: 'final_answer' };
}

/**
 * What follows a recorded proposal: waiting for jobs ends when one finished (its notification
 * starts the next turn); an idle run ends with its answer unless a follow-up comes in time.
 */
export async function waitAfter({ state, board }: CompletionContext, transition: Transition): Promise<Transition | undefined> {
  if (transition.kind === 'waiting_for_jobs') {
    await condition(() => board.hasNotifications() || !board.hasRunning());
    return undefined;
  }
  if (transition.kind === 'idle') {
    if (await condition(() => state.followUps.length > 0, durationToMs(transition.timeout))) return undefined;
    return { kind: 'stop', reason: 'final_answer' };
  }
  return undefined;
}

/** The one successful stop, once its step is recorded: the last text is the answer. */
export function finish({ state, report }: CompletionContext): AgentRunResult {
  const text = state.lastText;
  report.setPhase('completed');
  report.attributes.set({ status: 'completed', waitingForHuman: false });
  report.publish({ type: 'final', text, stopReason: 'final_answer' });
  const { inputTokens, outputTokens, costUsd } = state.budget;
  return {
    text,
    stopReason: 'final_answer',
    iterations: state.budget.iterations,
    usage: { inputTokens, outputTokens },
    costUsd,
    ...(state.finalAnswer ? { finalAnswer: state.finalAnswer } : {}),
    ...(state.notes?.length ? { notes: state.notes } : {}),
  };
}
