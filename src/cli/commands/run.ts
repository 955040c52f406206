import { existsSync } from 'node:fs';
import { visibleJson } from '../../common/visible-text';
import pc from 'picocolors';
import { workspaceOverlap } from '../../connection/workspace-overlap';
import { providerConfigFromEnv } from '../../connection/provider-config';
import { runUiLink, WORKFLOW_TYPE } from '../../connection/config';
import type { AgentRunInput } from '../../common/input';
import { temporalProfile } from '../../connection/temporal-profile';
import { preflight } from '../../doctor/run-doctor';
import { hasLiveWorker } from '../../runs/live-pollers';
import { openStack, type Stack } from '../local-stack';
import type { LocalWorker } from '../local-worker';
import { localWorkerModule } from '../load-on-use';
import { reportOutcome } from '../report-outcome';
import { exitCodeOf } from '../../runs/run-outcome';
import { buildRunInput, type RunFlags } from '../run-input';
import { firstLine, newWorkflowId } from '../../runs/run-labels';
import { UsageError } from '../../runs/usage-error';
import { checkModelSettings, checkWorkspace } from '../run-setup-check';
import { warnWhenNoWorker } from '../warn-no-worker';
import { openDisplay } from '../terminal/open-display';
import { watchRun } from '../watch-run';

export interface RunCommandFlags extends RunFlags {
  id?: string;
  json?: boolean;
  follow?: boolean;
}

const log = (line: string) => console.error(pc.dim(line));

/**
 * `bareagent run`: on a machine with nothing running (TEMPORAL_ADDRESS unset) it brings up the
 * embedded server, left running for the Web UI, and a worker in this process when none polls.
 */
export async function runCommand(prompt: string, flags: RunCommandFlags, mode: 'run' | 'start'): Promise<number> {
  const input = buildRunInput(prompt, flags);
  // Before any server starts: the worker would refuse this run anyway.
  refuseOverlap(input.workspace);
  return launchRun(flags, mode, async () => ({ input, summary: firstLine(prompt) }));
}

/**
 * A workspace that holds this machine's BareAgent home (or lies in it) is refused here, as the
 * worker refuses it, when this machine can see that directory (a remote worker's may not exist here).
 */
export function refuseOverlap(workspace: string | undefined): void {
  if (!workspace || !existsSync(workspace)) return;
  const overlap = workspaceOverlap(workspace);
  if (overlap) throw new UsageError(overlap);
}

/** What to start, decided once the client is connected (a fork reads its origin first). */
export type RunPlan = (stack: Stack) => Promise<{ input: AgentRunInput; summary: string }>;

/** Starts a run and, unless `start` without --follow, follows it here: the path of `run`, `start`, `fork` and `resume`. */
export async function launchRun(flags: Pick<RunCommandFlags, 'id' | 'json' | 'follow'>, mode: 'run' | 'start', plan: RunPlan): Promise<number> {
  // With nothing running, `run` starts the embedded server and, most likely, a worker here.
  const embedded = mode === 'run' && !temporalProfile().address;
  if (embedded) await preflight('bareagent run', { cli: true, sandbox: true, tests: false, postgres: false });
  const stack = await openStack({ embedded: mode === 'run', log, background: true });
  let worker: LocalWorker | undefined;
  try {
    const { client, config } = stack;
    const planned = await plan(stack);
    const { summary } = planned;
    let { input } = planned;
    refuseOverlap(input.workspace);
    // `run` follows here, so its worker is most likely on this machine: a workspace that is not
    // there fails now, before a run exists. (`start` may target a worker elsewhere.)
    if (mode === 'run' && input.workspace) await checkWorkspace(input.workspace);
    if (mode === 'run' && !(await hasLiveWorker(client, config.namespace, config.taskQueue))) {
      const provider = providerConfigFromEnv();
      await checkModelSettings(input.model, provider);
      // The worker's default model, written into the input: the run records what it used (list, the Web UI).
      if (!input.model && provider.defaultModel) input = { ...input, model: provider.defaultModel };
      log(`No live worker polls "${config.taskQueue}": starting one in this process...`);
      if (!embedded) await preflight('A worker in this process', { cli: false, sandbox: true, tests: false, postgres: false });
      worker = await localWorkerModule().startLocalWorker(config, config.taskQueue, provider, log);
    }
    const workflowId = flags.id ?? newWorkflowId();
    await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: config.taskQueue,
      workflowId,
      args: [input],
      staticSummary: summary,
    });
    const link = runUiLink(stack.uiPort, config.namespace, workflowId);
    if (mode === 'start' && !flags.follow) {
      if (flags.json) console.log(visibleJson({ workflowId, ui: link }));
      else console.log(`${workflowId}\n${pc.dim(link)}`);
      return 0;
    }
    if (!flags.json) log(`Run ${workflowId} · ${link}`);
    const display = flags.json ? undefined : await openDisplay();
    const stopWarning = warnWhenNoWorker(client, workflowId, config.taskQueue, display ? (line) => display.warn(line) : log);
    const outcome = await watchRun(client, workflowId, {
      interactive: process.stdin.isTTY === true,
      json: !!flags.json,
      workerHere: worker !== undefined,
      ...(display ? { display } : {}),
    }).finally(stopWarning);
    reportOutcome(outcome, workflowId, link, !!flags.json);
    return exitCodeOf(outcome);
  } finally {
    await worker?.stop();
    await stack.close();
  }
}
