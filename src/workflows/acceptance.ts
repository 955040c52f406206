import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AgentRunConfig } from '../common/input';
import { sandboxRequest } from './sandbox-request';

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
