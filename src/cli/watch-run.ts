import type { Client } from '@temporalio/client';
import { visibleJson, visibleProse } from '../common/visible-text';
import pc from 'picocolors';
import type { RunEvent } from '../common/events';
import { askInline, howToAnswer } from './ask-permission';
import { isPending } from '../runs/decisions';
import { followRun, type CatchUp } from './follow';
import { interruptNotice, INTERRUPTED_EXIT, whileFollowing } from './interrupt-notice';
import { runOutcome, type RunOutcome } from '../runs/run-outcome';
import { openDisplay } from './terminal/open-display';
import type { RunDisplay } from './terminal/run-display';

export interface WatchOptions {
  /** Ask permission questions in this terminal (needs a TTY on stdin). */
  interactive: boolean;
  /** Print events as JSON lines instead of text. */
  json: boolean;
  fromOffset?: number;
  /** Where the run shows (default: a live display on a terminal, plain text otherwise). */
  display?: RunDisplay;
  /** How the events a closed run's last poll missed are read (default: followRun's, a query worker when needed). */
  catchUp?: CatchUp;
  /** The run's worker runs in this process (`bareagent run` started it): Ctrl-C stops it too. */
  workerHere?: boolean;
  /** Not interactive: called for each open question after it is shown with how to answer it (the demo's default answer). */
  unattended?: (target: string, event: Extract<RunEvent, { type: 'permission_request' }>) => void;
}

/** Shows a run as it works (text, tool calls, questions, notifications) and resolves with how it ended. */
export async function watchRun(client: Client, workflowId: string, options: WatchOptions): Promise<RunOutcome> {
  if (options.json) return watchAsJson(client, workflowId, options.fromOffset);
  const display = options.display ?? (await openDisplay());
  const onPermission = async (event: Extract<RunEvent, { type: 'permission_request' }>, offset: number) => {
    if (!(await isPending(client, workflowId, event.requestId).catch(() => false))) return;
    // A subagent's question is answered in the subagent's own workflow.
    const target = event.workflowId ?? workflowId;
    if (!options.interactive) {
      display.note(pc.dim(howToAnswer(target, event)));
      options.unattended?.(target, event);
      return;
    }
    display.pause();
    // A subagent's decision is on its own stream: watched from its start, not from our offset.
    const fromOffset = event.workflowId ? 0 : offset + 1;
    // The question handles its own Ctrl-C (it leaves the run waiting and says how to answer).
    interrupt.suspend();
    await askInline(client, target, event, { fromOffset, followed: workflowId }).finally(() => {
      interrupt.resume();
      display.resume();
    });
  };
  // Ctrl-C leaves the run going: the live parts are cleared and it says how to get back to it.
  const interrupt = whileFollowing(() => {
    void display.close().finally(() => {
      console.error(interruptNotice(workflowId, options.workerHere === true));
      process.exit(INTERRUPTED_EXIT);
    });
  });
  try {
    await followRun(
      client,
      workflowId,
      async (event, offset) => {
        await display.event(event);
        if (event.type === 'permission_request') await onPermission(event, offset);
      },
      {
        ...(options.fromOffset !== undefined ? { fromOffset: options.fromOffset } : {}),
        onReconnect: (err) => display.warn(`connection lost (${err.message}); reconnecting...`),
        ...(options.catchUp ? { catchUp: options.catchUp } : {}),
      },
    );
  } finally {
    interrupt.dispose();
    await display.close();
  }
  const outcome = await runOutcome(client, workflowId);
  if (outcome.status === 'completed' && !display.answerShown && outcome.result.text) console.log(visibleProse(outcome.result.text));
  return outcome;
}

async function watchAsJson(client: Client, workflowId: string, fromOffset: number | undefined): Promise<RunOutcome> {
  await followRun(client, workflowId, (event, offset) => void process.stdout.write(`${visibleJson({ offset, ...event })}\n`), {
    ...(fromOffset !== undefined ? { fromOffset } : {}),
  });
  return runOutcome(client, workflowId);
}
