import type { Command } from 'commander';
import pc from 'picocolors';
import { forkSummary } from '../../common/fork';
import { readOrigin, type Origin } from '../../runs/origin-input';
import { checkForkOverrides, forkInput, type ForkOverrides } from '../../runs/fork-input';
import { firstLine } from '../../runs/run-labels';
import { UsageError } from '../../runs/usage-error';
import { launchRun } from './run';

export interface ForkFlags extends ForkOverrides {
  step?: string;
  prompt?: string;
  id?: string;
  json?: boolean;
}

export const RESUME_PROMPT = 'Continue from where you stopped.';

/** Statuses `resume` accepts: the run ended without its answer. */
const RESUMABLE = new Set(['FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT']);

/**
 * `bareagent fork <workflowId>` / `bareagent resume <workflowId>`: a new run (new workflow id)
 * whose conversation is the origin's up to a step, with the origin's input unless overridden,
 * followed here like `run`. The origin's tools do not run again; its budgets start over.
 */
export async function forkCommand(kind: 'fork' | 'resume', workflowId: string, flags: ForkFlags): Promise<number> {
  const step = kind === 'fork' && flags.step !== undefined ? Number(flags.step) : undefined;
  if (step !== undefined && !(Number.isInteger(step) && step >= 1)) throw new UsageError(`--step must be a step number (1 or more, see bareagent history), got "${flags.step}"`);
  const prompt = flags.prompt ?? RESUME_PROMPT;
  checkForkOverrides(prompt, flags);
  return launchRun(flags, 'run', async ({ client }) => {
    const origin = await readOrigin(client, workflowId);
    if (kind === 'resume') refuseUnlessStopped(origin);
    const input = forkInput(origin, prompt, step, flags);
    if (!flags.json) console.error(pc.dim(`${kind === 'resume' ? 'Resuming' : 'Forking'} ${workflowId} ${step === undefined ? 'from its end' : `from step ${step}`}: its tool results are reused, nothing of it runs again; budgets count from zero.`));
    const summary = kind === 'resume' ? `resume of ${workflowId}: ${firstLine(prompt, 80)}` : forkSummary({ workflowId, step }, firstLine(prompt, 80));
    return { input, summary };
  });
}

function refuseUnlessStopped(origin: Origin): void {
  if (origin.status === 'RUNNING') {
    throw new UsageError(`Run ${origin.workflowId} is still running: follow it (bareagent follow ${origin.workflowId}) or send it a message; resume is for a run that stopped.`);
  }
  if (origin.status === 'COMPLETED') {
    throw new UsageError(`Run ${origin.workflowId} completed with its answer: to go on from there, fork it: bareagent fork ${origin.workflowId} --prompt "..."`);
  }
  if (!RESUMABLE.has(origin.status)) throw new UsageError(`Run ${origin.workflowId} is ${origin.status.toLowerCase()}: only a failed, cancelled, terminated or timed-out run can be resumed.`);
}

function budgetOptions(command: Command): Command {
  return command
    .option('--prompt <text>', `the next user message (default: "${RESUME_PROMPT}")`)
    .option('--max-iterations <n>', "iteration limit of the new run (default: the origin's)")
    .option('--max-tokens <n>', "token budget of the new run (default: the origin's), counted from zero")
    .option('--max-cost <usd>', "cost budget in USD of the new run (default: the origin's), counted from zero")
    .option('--max-wall-clock <duration>', "time budget of the new run such as \"30m\" (default: the origin's)")
    .option('-m, --model <name>', "model of the new run (default: the origin's)")
    .option('--id <workflowId>', 'workflow id of the new run (default: generated)')
    .option('--json', 'print JSON lines for scripts');
}

export function registerFork(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  budgetOptions(program.command('fork').argument('<workflowId>', 'the run to fork (open or closed)'))
    .option('--step <n>', 'fork after this step (the STEP column of bareagent history; default: the last)')
    .option('--restore-files', "put the workspace back to the origin's checkpoint of that step before the first turn")
    .description("start a new run from another run's conversation up to a step; nothing of it runs again")
    .addHelpText(
      'after',
      `
The new run (a new workflow id) starts with the origin's conversation as it stood right after step
N was recorded, then the prompt as the next user message. The origin's tool calls are not run again:
their results are in the conversation. It inherits the origin's input (workspace, model, permission
mode and rules, sandbox, budgets, ...) unless overridden here; its budgets count from zero. The
link shows in status, list (BareAgentForkedFrom) and the Web UI summary.

Examples:
  bareagent fork fix-1 --step 2 --prompt "Try the other approach: patch the parser instead"
  bareagent fork fix-1 --prompt "Now also update the changelog"
  temporal workflow start --type agentRun --task-queue bareagent --input '{"prompt":"go on","forkFrom":{"workflowId":"fix-1","step":2}}'`,
    )
    .action((workflowId: string, flags: ForkFlags) => settle(forkCommand('fork', workflowId, flags)));
  budgetOptions(program.command('resume').argument('<workflowId>', 'a run that failed, was cancelled, terminated or timed out'))
    .description('continue a stopped run from its end in a new run, with fresh (or larger) budgets')
    .addHelpText(
      'after',
      `
A fork at the origin's last step for a run that stopped without its answer (a budget, the
iteration limit, a provider outage, a cancellation). Refused for a run still running (send it a
message) or one that completed (fork it instead). Tool calls the origin asked for but never ran
get an error result saying so; nothing that ran runs again. Budgets count from zero: pass larger
ones to give the run more room than the origin had.

Examples:
  bareagent resume fix-1 --max-tokens 200000
  bareagent resume fix-1 --max-iterations 50 --prompt "Finish the migration; skip the docs"`,
    )
    .action((workflowId: string, flags: ForkFlags) => settle(forkCommand('resume', workflowId, flags)));
}
