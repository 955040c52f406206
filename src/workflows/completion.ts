import { condition, type ApplicationFailure } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import type { AgentRunResult, BudgetSnapshot } from '../common/wire';
import { durationToMs } from '../loop/duration';
import type { StopReason } from '../loop/stop-reasons';
import { runAcceptance } from './acceptance';
import type { JobBoard } from './job-board';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';

export interface CompletionContext {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  board: JobBoard;
  report: RunReporter;
  stop(reason: StopReason, message: string, detail: string): ApplicationFailure;
}

/**
 * Seed 003, 4.4: a final answer is a proposal. It ends the run only when no job runs (or the
 * run does not wait for jobs), the acceptance check passes and no follow-up is queued.
 */
export async function proposeCompletion(context: CompletionContext, before: BudgetSnapshot): Promise<AgentRunResult | undefined> {
  const { config, state, board, report } = context;
  if (config.waitForJobs && board.hasRunning()) {
    const waitingOn = board.list().map((job) => job.taskId);
    report.setPhase('waiting_for_jobs');
    report.recordStep('waiting_for_jobs', before, 0, [], `final answer proposed while ${waitingOn.join(', ')} still run`);
    await condition(() => board.hasNotifications() || !board.hasRunning());
    return undefined;
  }
  if (config.acceptance) {
    report.setPhase('checking_acceptance');
    const check = await runAcceptance(config);
    if (check && !check.passed) {
      state.acceptanceAttempts += 1;
      if (state.acceptanceAttempts >= config.acceptance.maxAttempts) {
        throw context.stop('acceptance_failed', `Acceptance check failed ${state.acceptanceAttempts} times: ${config.acceptance.command}`, check.output.slice(0, 500));
      }
      state.messages.push({
        role: 'user',
        content: `The acceptance check \`${config.acceptance.command}\` failed (${state.acceptanceAttempts} of ${config.acceptance.maxAttempts}); the task is not done yet:\n${check.output.slice(-4000)}`,
      });
      report.recordStep('acceptance_failed', before, 1, [], check.output.slice(0, 300));
      return undefined;
    }
  }
  if (state.followUps.length > 0) {
    report.recordStep('next_turn', before, 0, [], 'answered; a follow-up is queued');
    return undefined;
  }
  if (config.idleTimeout !== undefined) {
    report.setPhase('idle');
    report.recordStep('idle', before, 0, [], `answered; open for follow-ups for ${config.idleTimeout}`);
    if (await condition(() => state.followUps.length > 0, durationToMs(config.idleTimeout))) return undefined;
  }
  return finish(context, before);
}

/** The one successful stop: the last text is the answer. */
function finish({ state, report }: CompletionContext, before: BudgetSnapshot): AgentRunResult {
  const text = state.lastText;
  report.recordStep('stop:final_answer', before, 0, []);
  report.setPhase('completed');
  report.attributes.set({ status: 'completed', waitingForHuman: false });
  report.publish({ type: 'final', text, stopReason: 'final_answer' });
  const { inputTokens, outputTokens, costUsd } = state.budget;
  return { text, stopReason: 'final_answer', iterations: state.budget.iterations, usage: { inputTokens, outputTokens }, costUsd };
}
