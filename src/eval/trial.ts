import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { durationToMs } from '../common/duration';
import { DEFAULT_SANDBOX_REQUEST, runShell } from '../sandbox/shell';
import { statusQuery, stepsQuery } from '../common/contract';
import type { AgentRunInput } from '../common/input';
import { WORKFLOW_TYPE } from '../connection/config';
import { runOutcome } from '../runs/run-outcome';
import type { EvalTask } from './suite';
import { copyTemplate } from './template-links';

/** What every trial of an eval shares: the command line's choices. */
export interface TrialSettings {
  taskQueue: string;
  model?: string;
  /** Replaces the default system prompt; `''` sends none. */
  systemPrompt?: string;
  maxIterations: number;
  /** A duration string (`5m`): the budget of a trial whose task sets none. */
  maxWallClock: string;
  maxOutputTokens?: number;
  temperature?: number;
  /** A model profile (src/common/profiles.ts) for every trial; the flags above win over its settings. */
  profile?: string;
  stream: boolean;
  /** Prefix of every trial's workflow id, so one eval's runs are found together (`bareagent list`). */
  idPrefix: string;
}

export interface TrialResult {
  task: string;
  trial: number;
  /**
   * `loop`: an agentRun; `model-alone`: one request to the model, its code applied
   * (src/eval/model-alone.ts); `mini-swe-agent`: the peer (evals/peer/mini-swe-agent.ts).
   */
  mode: 'loop' | 'model-alone' | 'mini-swe-agent';
  workflowId: string;
  workspace: string;
  pass: boolean;
  /** `completed`, `failed`, `cancelled` or `terminated`: how the run ended. */
  status: string;
  /** The last step's stop (`final_answer`, `max_iterations`, `budget_wall_clock`, ...), or the failure type. */
  stopReason: string;
  iterations: number;
  inputTokens: number;
  outputTokens: number;
  wallMs: number;
  check?: { exitCode: number | null; timedOut: boolean; output: string };
  answerMatched?: boolean;
  finalAnswer?: string;
  error?: string;
}

/** The run input of one trial: an ordinary `agentRun` that no human attends (a question is denied). */
export function trialInput(task: EvalTask, workspace: string, settings: TrialSettings): AgentRunInput {
  const sampling = modelSettings(settings);
  return {
    prompt: task.prompt,
    workspace,
    maxIterations: task.maxIterations ?? settings.maxIterations,
    permissionMode: task.permissionMode ?? 'auto',
    askHuman: false,
    stream: settings.stream,
    budgets: { maxWallClock: settings.maxWallClock, ...task.budgets },
    ...(task.permissionRules ? { permissionRules: task.permissionRules } : {}),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.systemPrompt !== undefined ? { systemPrompt: settings.systemPrompt } : {}),
    ...(settings.profile !== undefined ? { profile: settings.profile } : {}),
    ...(sampling ? { modelSettings: sampling } : {}),
    ...(acceptanceCommand(task) ? { acceptance: { command: acceptanceCommand(task) as string, timeout: task.checkTimeoutSeconds } } : {}),
  };
}

function modelSettings(settings: TrialSettings): AgentRunInput['modelSettings'] {
  if (!settings.maxOutputTokens && settings.temperature === undefined) return undefined;
  return {
    ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
  };
}

function acceptanceCommand(task: EvalTask): string | undefined {
  if (typeof task.acceptance === 'string') return task.acceptance;
  return task.acceptance ? task.check : undefined;
}

/** A fresh copy of the task's workspace in a temporary directory, kept afterwards. */
export function trialWorkspace(task: EvalTask): string {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), `bareagent-eval-${task.name}-`)));
  copyTemplate(task.template, workspace);
  return workspace;
}

/**
 * One trial: a fresh copy of the task's workspace (kept afterwards, to look at or fork from), the
 * run to its end, then the check command in the same sandbox the run's own commands get.
 */
export async function runTrial(client: Client, task: EvalTask, trial: number, settings: TrialSettings): Promise<TrialResult> {
  const workspace = trialWorkspace(task);
  const workflowId = `${settings.idPrefix}-${task.name}-${trial}`;
  const started = Date.now();
  await client.workflow.start(WORKFLOW_TYPE, {
    taskQueue: settings.taskQueue,
    workflowId,
    args: [trialInput(task, workspace, settings)],
    staticSummary: `eval ${task.name} #${trial}`,
  });
  // The wall-clock budget is checked between steps; a model call slower than the budget is
  // cancelled from here a minute after it, so that one stuck trial cannot hold the whole eval.
  const overdue = setTimeout(() => void client.workflow.getHandle(workflowId).cancel().catch(() => undefined), durationToMs(settings.maxWallClock) + 60_000);
  const outcome = await runOutcome(client, workflowId).finally(() => clearTimeout(overdue));
  const wallMs = Date.now() - started;
  const handle = client.workflow.getHandle(workflowId);
  // A query on a closed run replays it on a worker: on a loaded machine that can time out once.
  const status = await withRetries(() => handle.query(statusQuery));
  const steps = await withRetries(() => handle.query(stepsQuery));
  const lastReason = steps.at(-1)?.reason ?? '';
  const result: TrialResult = {
    task: task.name,
    trial,
    mode: 'loop',
    workflowId,
    workspace,
    pass: false,
    status: outcome.status,
    stopReason: lastReason.startsWith('stop:') ? lastReason.slice('stop:'.length) : outcome.status === 'failed' ? outcome.failureType : lastReason || outcome.status,
    iterations: status.iteration,
    inputTokens: status.usage.inputTokens,
    outputTokens: status.usage.outputTokens,
    wallMs,
    ...(outcome.status === 'completed' ? { finalAnswer: outcome.result.text } : { error: outcome.message }),
  };
  return { ...result, ...(await checkTrial(task, workspace, result.finalAnswer)) };
}

/** The task's verdict on a finished trial: its answer pattern against the final answer, its check command in the sandbox. */
export async function checkTrial(task: EvalTask, workspace: string, finalAnswer: string | undefined): Promise<Pick<TrialResult, 'pass' | 'check' | 'answerMatched'>> {
  const verdict: Pick<TrialResult, 'pass' | 'check' | 'answerMatched'> = { pass: true };
  if (task.answer !== undefined) {
    verdict.answerMatched = finalAnswer !== undefined && new RegExp(task.answer, 'i').test(finalAnswer);
    verdict.pass &&= verdict.answerMatched;
  }
  if (task.check !== undefined) {
    const checked = await runShell(task.check, {
      workspace,
      sandbox: DEFAULT_SANDBOX_REQUEST,
      timeoutMs: task.checkTimeoutSeconds * 1000,
      maxChars: 4000,
    });
    verdict.check = { exitCode: checked.exitCode, timedOut: checked.timedOut, output: checked.output.slice(-1000) };
    verdict.pass &&= checked.exitCode === 0 && !checked.timedOut;
  }
  return verdict;
}

async function withRetries<T>(read: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 2000 * attempt));
    }
  }
}
