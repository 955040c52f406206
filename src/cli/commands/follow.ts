import type { Command } from 'commander';
import pc from 'picocolors';
import { runUiLink } from '../../connection/config';
import { openStack } from '../local-stack';
import { reportOutcome } from '../report-outcome';
import { exitCodeOf } from '../../runs/run-outcome';
import { UsageError } from '../../runs/usage-error';
import { watchRun } from '../watch-run';

export interface FollowFlags {
  from?: string;
  json?: boolean;
}

/**
 * `bareagent follow <workflowId>`: any run, however it was started (this CLI, the Temporal CLI,
 * a client script), from any offset of its stream; reconnects after a lost connection.
 */
export async function followCommand(workflowId: string, flags: FollowFlags): Promise<number> {
  const fromOffset = parseOffset(flags.from);
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    // Fails with WorkflowNotFoundError (exit 2) before anything is printed.
    await stack.client.workflow.getHandle(workflowId).describe();
    const link = runUiLink(stack.uiPort, stack.config.namespace, workflowId);
    if (!flags.json) console.error(pc.dim(`Following ${workflowId}${fromOffset ? ` from offset ${fromOffset}` : ''} · ${link}`));
    const outcome = await watchRun(stack.client, workflowId, {
      interactive: !flags.json && process.stdin.isTTY === true,
      json: !!flags.json,
      fromOffset,
    });
    reportOutcome(outcome, workflowId, link, !!flags.json);
    return exitCodeOf(outcome);
  } finally {
    await stack.close();
  }
}

function parseOffset(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d+$/.test(value)) throw new UsageError(`--from must be a stream offset (0, 1, 2, ...), got "${value}"`);
  return Number(value);
}

export function registerFollow(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('follow')
    .argument('<workflowId>', 'the run to follow (started by bareagent, the Temporal CLI or any client)')
    .option('--from <offset>', 'start at this offset of the run\'s event stream (default 0: from the beginning)')
    .option('--json', 'print one JSON line per event ({ offset, type, ... }), then the outcome')
    .description('stream a run: text, tool calls, permission questions and notifications, until it ends')
    .addHelpText(
      'after',
      `
Works for a run that is running or already closed: a closed run is replayed from its stream.
Permission questions are asked inline when stdin is a terminal; otherwise it prints how to answer.
Exit code: the run's outcome (0 completed, 1 failed, 3 cancelled or terminated; 2 no such run).

Examples:
  bareagent follow fix-1
  bareagent follow fix-1 --from 40          # resume where an earlier --json follower stopped
  bareagent follow fix-1 --json | jq -r 'select(.type == "text") | .delta'`,
    )
    .action((workflowId: string, flags: FollowFlags) => settle(followCommand(workflowId, flags)));
}
