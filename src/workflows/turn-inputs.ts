import { injectNotifications, notificationMessage } from '../loop/notifications';
import type { Transition } from '../loop/transitions';
import type { JobBoard } from './job-board';
import { withMentionedFiles, type MentionContext } from './mentions';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';

/** The prompt's message (the first, or a fork's last) with the files it mentions attached. */
export async function attachToPrompt(context: MentionContext): Promise<void> {
  const { config, state } = context;
  const messages = state.messages;
  let index = messages.length - 1;
  while (index >= 0 && !(messages[index]?.role === 'user' && messages[index]?.content === config.prompt)) index -= 1;
  if (index < 0) return;
  const content = await withMentionedFiles(config.prompt, context);
  if (content !== config.prompt) state.messages[index] = { role: 'user', content };
}

/** Follow-ups wait in a queue and start the next turn at a safe boundary: never in the middle of a tool round. */
export async function takeFollowUps(context: MentionContext): Promise<Transition | undefined> {
  const { state } = context;
  if (state.followUps.length === 0) return undefined;
  const taken = state.followUps.splice(0);
  for (const text of taken) state.messages.push({ role: 'user', content: await withMentionedFiles(text, context) });
  return { kind: 'follow_up_taken', count: taken.length };
}

/** Before each model call, finished jobs' notifications enter the history as one system message. */
export function injectFinishedJobs(state: RunState, board: JobBoard, report: RunReporter): void {
  const drained = board.drain();
  if (drained.length === 0) return;
  state.jobsFinished = true;
  state.messages = injectNotifications(state.messages, drained);
  report.publish({ type: 'notification', step: state.budget.iterations, text: notificationMessage(drained).content as string });
}
