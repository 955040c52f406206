import type { Command } from 'commander';
import { visibleJson } from '../../common/visible-text';
import pc from 'picocolors';
import { openStack } from '../local-stack';
import { EXIT, runOutcome, type RunOutcome } from '../../runs/run-outcome';
import { UsageError } from '../../runs/usage-error';
import { cancelTurnSignal } from '../../common/contract';

export interface CancelFlags {
  /** Only the turn under way: the run stays open for the next message. */
  turn?: boolean;
  wait?: boolean;
  timeout?: string;
  json?: boolean;
}

/**
 * `bareagent cancel <workflowId>`: Temporal cancellation. The run's current model or tool call is
 * cancelled (a `bash` process is killed with its children), background jobs are cancelled with
 * it, and the run closes as Cancelled. Waits a bounded time to report the final status.
 */
export async function cancelCommand(workflowId: string, flags: CancelFlags): Promise<number> {
  const timeoutSeconds = Number(flags.timeout ?? 30);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError(`--timeout must be a number of seconds, got "${flags.timeout}"`);
  const stack = await openStack({ embedded: false, log: () => undefined });
  const print = (json: Record<string, unknown>, text: string) => console.log(flags.json ? visibleJson({ workflowId, ...json }) : text);
  try {
    const handle = stack.client.workflow.getHandle(workflowId);
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') {
      print({ cancelled: false, status: status.name.toLowerCase() }, `Run ${workflowId} is already ${status.name.toLowerCase()}; nothing to cancel.`);
      return EXIT.usage;
    }
    if (flags.turn) {
      await handle.signal(cancelTurnSignal, { reason: 'cancelled with bareagent cancel --turn' });
      print({ turnCancelRequested: true }, `turn cancellation requested: ${workflowId} stops its current model or tool call and waits for the next message (bareagent message ${workflowId} "...")`);
      return EXIT.ok;
    }
    await handle.cancel();
    if (!flags.json) console.error(pc.dim(`Cancellation requested for ${workflowId}.`));
    if (flags.wait === false) {
      print({ cancelRequested: true }, `cancellation requested: ${workflowId} ends at its next workflow task`);
      return EXIT.ok;
    }
    const outcome = await withTimeout(runOutcome(stack.client, workflowId), timeoutSeconds * 1000);
    if (!outcome) {
      print(
        { cancelRequested: true, status: 'running' },
        pc.yellow(`${workflowId} is still running after ${timeoutSeconds} s; the cancellation stays recorded (no worker polling?).`),
      );
      return EXIT.failed;
    }
    if (outcome.status === 'cancelled') {
      print({ cancelRequested: true, status: 'cancelled' }, `${pc.yellow('cancelled')} ${workflowId}`);
      return EXIT.ok;
    }
    const detail = outcome.status === 'failed' ? `: ${outcome.failureType}: ${outcome.message}` : '';
    print({ cancelRequested: true, ...outcome }, `${workflowId} ended ${outcome.status} before the cancellation took effect${detail}`);
    return EXIT.failed;
  } finally {
    await stack.close();
  }
}

async function withTimeout(promise: Promise<RunOutcome>, ms: number): Promise<RunOutcome | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerCancel(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('cancel')
    .argument('<workflowId>', 'a running run')
    .option('--turn', 'cancel only the turn under way; the run waits for the next message')
    .option('--no-wait', 'return once the cancellation is requested')
    .option('--timeout <seconds>', 'how long to wait for the run to close', '30')
    .option('--json', 'print { workflowId, cancelRequested, status, ... }')
    .description('cancel a run (Temporal cancellation) and report how it ended')
    .addHelpText(
      'after',
      `
The run's current model call or tool call is cancelled (a running bash command is killed with its
children), its background jobs are cancelled, and the workflow closes as Cancelled.
With --turn, only the turn under way is stopped (the \`cancelTurn\` signal): its model or tool call
is cancelled, the run records turn_cancelled and waits for the next message (a run without
--idle-timeout ends instead). Background jobs go on. Ignored while the run already waits.
Exit code: 0 cancelled (or requested, with --no-wait), 1 it ended otherwise or is still running
after --timeout, 2 no such run or already closed.

Examples:
  bareagent cancel fix-1
  bareagent cancel fix-1 --no-wait
  bareagent cancel fix-1 --turn && bareagent message fix-1 "only the README, please"
  temporal workflow cancel --workflow-id fix-1`,
    )
    .action((workflowId: string, flags: CancelFlags) => settle(cancelCommand(workflowId, flags)));
}
