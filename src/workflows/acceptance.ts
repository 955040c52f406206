import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AgentRunConfig } from '../common/input';
import { sandboxRequest } from './sandbox-request';
import { changedSourceFiles, syntaxCheckCommand } from '../loop/syntax-check';
import type { RunState } from './run-state';

export interface AcceptanceResult {
  passed: boolean;
  output: string;
}

/** The run's acceptance check: its command, run in the workspace; exit 0 passes. */
export async function runAcceptance(config: AgentRunConfig): Promise<AcceptanceResult | undefined> {
  const check = config.acceptance;
  if (!check) return undefined;
  const { runCommand } = proxyActivities<Activities>({
    startToCloseTimeout: `${check.timeout + 60} seconds`,
    heartbeatTimeout: '10 seconds',
    retry: { maximumAttempts: 2 },
    ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}),
  });
  const result = await runCommand.executeWithOptions({ summary: `acceptance ${check.command}`.slice(0, 200) }, [
    {
      command: check.command,
      timeoutSeconds: check.timeout,
      sandbox: sandboxRequest(config),
      ...(config.workspace ? { workspace: config.workspace } : {}),
    },
  ]);
  const passed = result.exitCode === 0 && !result.timedOut;
  const status = result.timedOut ? `timed out after ${check.timeout} seconds` : `exit code ${result.exitCode ?? 'signal'}`;
  return { passed, output: `${status}\n${result.output}`.trimEnd() };
}

const SYNTAX_TIMEOUT_SECONDS = 30;

/**
 * Whether the Python, JavaScript and JSON files the run changed with its file tools still parse
 * (src/loop/syntax-check.ts), checked in the sandbox like the acceptance command; undefined when
 * the run changed none.
 */
export async function runSyntaxCheck(config: AgentRunConfig, state: RunState): Promise<AcceptanceResult | undefined> {
  const command = syntaxCheckCommand(changedSourceFiles(state.messages));
  if (!command) return undefined;
  const { runCommand } = proxyActivities<Activities>({
    startToCloseTimeout: `${SYNTAX_TIMEOUT_SECONDS + 60} seconds`,
    heartbeatTimeout: '10 seconds',
    retry: { maximumAttempts: 2 },
    ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}),
  });
  const result = await runCommand.executeWithOptions({ summary: 'syntax check of the changed files' }, [
    { command, timeoutSeconds: SYNTAX_TIMEOUT_SECONDS, sandbox: sandboxRequest(config), ...(config.workspace ? { workspace: config.workspace } : {}) },
  ]);
  // A check that timed out says nothing about the files: the answer is not held up by it.
  return { passed: result.exitCode === 0 || result.timedOut, output: result.output.trimEnd() };
}
