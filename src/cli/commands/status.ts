import { statusQuery } from '../../common/contract';
import type { Client } from '@temporalio/client';
import pc from 'picocolors';
import { toolSummary } from '../../common/tool-schemas';
import { visibleText, visibleJson } from '../../common/visible-text';
import type { RunStatus } from '../../common/wire';
import { openStack } from '../local-stack';
import { queryRun } from '../../runs/query-run';
import { versionLabel } from '../run-version';

/** `bareagent status [workflowId]`: one run's state, or every run that waits for a human. */
export async function statusCommand(workflowId: string | undefined, flags: { json?: boolean }): Promise<number> {
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const ids = workflowId ? [workflowId] : await waitingRuns(stack.client);
    const statuses = await Promise.all(
      ids.map(async (id) => ({
        workflowId: id,
        ...(await queryRun(stack.client, id, statusQuery)),
        version: versionLabel(await stack.client.workflow.getHandle(id).describe()) || null,
      })),
    );
    if (flags.json) {
      console.log(visibleJson(workflowId ? statuses[0] : statuses, undefined, 2));
      return 0;
    }
    if (!workflowId && statuses.length === 0) console.log('No run waits for a human.');
    for (const status of statuses) printStatus(status);
    return 0;
  } finally {
    await stack.close();
  }
}

async function waitingRuns(client: Client): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of client.workflow.list({ query: `BareAgentWaitingForHuman = true AND ExecutionStatus = 'Running'` })) {
    ids.push(run.workflowId);
  }
  return ids;
}

function printStatus(status: RunStatus & { workflowId: string; version: string | null }): void {
  const model = status.model ? `  model ${visibleText(status.model)}` : "  model: the worker's default (no call answered yet)";
  console.log(`${pc.bold(visibleText(status.workflowId))}  ${status.phase}  iteration ${status.iteration}/${status.maxIterations}  tokens ${status.usage.inputTokens} in / ${status.usage.outputTokens} out${model}`);
  if (status.version) console.log(pc.dim(`  worker version: ${visibleText(status.version)}`));
  if (status.forkedFrom) console.log(`  forked from ${visibleText(status.forkedFrom.workflowId)} at step ${status.forkedFrom.step} ${pc.dim(`(run ${status.forkedFrom.runId})`)}`);
  const { sandbox } = status;
  if (sandbox) {
    const paths = sandbox.readOnlyPaths.length ? ` · also readable: ${visibleText(sandbox.readOnlyPaths.join(', '))}` : '';
    const line = `  sandbox: network ${sandbox.network} · workspace ${visibleText(sandbox.workspace)} · ${sandbox.enforcement}${paths}`;
    console.log(sandbox.enforcement === 'off' ? pc.red(`${line} (BAREAGENT_SANDBOX=off on the worker: commands run unconfined)`) : pc.dim(line));
  }
  if (status.sessionRules?.length) console.log(pc.dim(`  allowed for the rest of this run: ${visibleText(status.sessionRules.join(', '))}`));
  const settings = status.workspaceSettings;
  if (settings && settings.files.length > 0) {
    const files = settings.files.map((file) => `${visibleText(file.path)} ${file.sha256.slice(0, 12)}`).join(', ');
    console.log(pc.dim(`  workspace settings: ${settings.applied ? 'applied' : 'not applied'} (${settings.decision.replace('_', ' ')}) · ${files}`));
  }
  for (const pending of status.pendingPermissions) {
    console.log(
      `  ${pc.magenta('waits for you:')} ${toolSummary(pending.tool, pending.input, 100)}  request ${visibleText(pending.requestId)}  (denied at ${pending.deadline})`,
    );
    console.log(pc.dim(`    bareagent approve ${visibleText(status.workflowId)} ${visibleText(pending.requestId)}   |   bareagent deny ${visibleText(status.workflowId)} ${visibleText(pending.requestId)}`));
  }
}
