import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { SandboxRequest } from '../common/sandbox';
import type { PinnedCopy } from '../sandbox/bwrap-args';
import { SandboxError } from '../sandbox/sandbox-error';
import { DEFAULT_SANDBOX_REQUEST, runShell, type ShellResult } from '../sandbox/shell';
import { workspaceRoot } from './tools/workspace';

export interface ActivityCommand {
  command: string;
  workspace?: string | undefined;
  sandbox?: SandboxRequest | undefined;
  timeoutSeconds: number;
  maxChars: number;
  stdin?: string;
  pinnedCopies?: PinnedCopy[];
}

/**
 * A command run by an activity of its own (a background job, a hook): in the run's sandbox,
 * killed when the activity is cancelled, heartbeating while it runs. A command the sandbox refuses
 * fails for good: another attempt on the same worker would be refused the same way.
 */
export async function runActivityCommand(run: ActivityCommand): Promise<ShellResult> {
  const context = Context.current();
  try {
    return await runShell(run.command, {
      workspace: workspaceRoot(run.workspace),
      sandbox: run.sandbox ?? DEFAULT_SANDBOX_REQUEST,
      timeoutMs: run.timeoutSeconds * 1000,
      maxChars: run.maxChars,
      signal: context.cancellationSignal,
      onTick: () => context.heartbeat(),
      ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
      ...(run.pinnedCopies?.length ? { pinnedCopies: run.pinnedCopies } : {}),
    });
  } catch (err) {
    if (err instanceof SandboxError) throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
    throw err;
  }
}
