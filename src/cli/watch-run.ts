import type { Client } from '@temporalio/client';
type Ora = import('ora', { with: { 'resolution-mode': 'import' } }).Ora;
import pc from 'picocolors';
import type { RunEvent } from '../common/events';
import { askInline, howToAnswer, isPending } from './ask-permission';
import { followRun } from './follow';
import { Renderer } from './render';
import { runOutcome, type RunOutcome } from './run-outcome';

export interface WatchOptions {
  /** Ask permission questions in this terminal (needs a TTY on stdin). */
  interactive: boolean;
  /** Print events as JSON lines instead of text. */
  json: boolean;
  fromOffset?: number;
}

/** Shows a run as it works (text, tool calls, questions, notifications) and resolves with how it ended. */
export async function watchRun(client: Client, workflowId: string, options: WatchOptions): Promise<RunOutcome> {
  const renderer = new Renderer();
  // ora is an ES module; this package is CommonJS.
  const spinner: Ora | undefined =
    !options.json && process.stderr.isTTY ? (await import('ora')).default({ stream: process.stderr }) : undefined;
  let sawFinalText = false;
  const onEvent = async (event: RunEvent, offset: number) => {
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ offset, ...event })}\n`);
      return;
    }
    spinner?.stop();
    if (event.type === 'text' || event.type === 'final') sawFinalText = true;
    if (event.type === 'tool_call') sawFinalText = false;
    renderer.render(event);
    if (event.type === 'model_call') spinner?.start(pc.dim(`thinking (step ${event.step})`));
    if (event.type === 'permission_request') await onPermission(event);
  };
  const onPermission = async (event: Extract<RunEvent, { type: 'permission_request' }>) => {
    if (!(await isPending(client, workflowId, event.requestId).catch(() => false))) return;
    // A subagent's question is answered in the subagent's own workflow.
    const target = event.workflowId ?? workflowId;
    if (options.interactive) await askInline(client, target, event);
    else renderer.line(pc.dim(howToAnswer(target, event.requestId)));
  };
  await followRun(client, workflowId, onEvent, {
    ...(options.fromOffset !== undefined ? { fromOffset: options.fromOffset } : {}),
    onReconnect: (err) => !options.json && renderer.line(pc.yellow(`connection lost (${err.message}); reconnecting...`)),
  });
  spinner?.stop();
  const outcome = await runOutcome(client, workflowId);
  if (!options.json && outcome.status === 'completed' && !sawFinalText && outcome.result.text) {
    renderer.line(outcome.result.text);
  }
  return outcome;
}
