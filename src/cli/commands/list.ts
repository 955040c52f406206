import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { visibleJson } from '../../common/visible-text';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { Option, type Command } from 'commander';
import pc from 'picocolors';
import { WORKFLOW_TYPE } from '../../connection/config';
import { openStack } from '../local-stack';
import { firstLine } from '../../runs/run-labels';
import { UsageError } from '../../runs/usage-error';
import { versionLabel } from '../run-version';
import { formatTable } from '../../terminal/table';

export const RUN_STATUSES = ['running', 'awaiting_approval', 'completed', 'failed'] as const;

const keys = {
  status: defineSearchAttributeKey('BareAgentStatus', SearchAttributeType.KEYWORD),
  waiting: defineSearchAttributeKey('BareAgentWaitingForHuman', SearchAttributeType.BOOL),
  iterations: defineSearchAttributeKey('BareAgentIterations', SearchAttributeType.INT),
  model: defineSearchAttributeKey('BareAgentModel', SearchAttributeType.KEYWORD),
  provider: defineSearchAttributeKey('BareAgentProvider', SearchAttributeType.KEYWORD),
  forkedFrom: defineSearchAttributeKey('BareAgentForkedFrom', SearchAttributeType.KEYWORD),
};

export interface ListFlags {
  status?: (typeof RUN_STATUSES)[number];
  waiting?: boolean;
  model?: string;
  provider?: string;
  forkedFrom?: string;
  query?: string;
  limit?: string;
  json?: boolean;
}

export interface ListedRun {
  workflowId: string;
  runId: string;
  /** BareAgentStatus while the run is open; the execution's own status once it was cancelled, terminated or timed out. */
  status: string;
  executionStatus: string;
  waitingForHuman: boolean;
  iterations: number | null;
  model: string | null;
  /** The provider whose adapter served the run's turns (BareAgentProvider); null before its first reply. */
  provider: string | null;
  /** The workflow id this run was forked (or resumed) from. */
  forkedFrom: string | null;
  startTime: string;
  closeTime: string | null;
  summary: string | null;
  /** With Worker Versioning: the deployment version (`deployment:build`) the run is on; null otherwise. */
  version: string | null;
}

/** The visibility query: always agentRun; the filters on BareAgent's search attributes. */
export function listQuery(flags: ListFlags): string {
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`];
  if (flags.status) clauses.push(`BareAgentStatus = '${flags.status}'`);
  // The attribute says what the run last reported; a cancelled or terminated run never updates it.
  if (flags.status === 'running' || flags.status === 'awaiting_approval' || flags.waiting) clauses.push(`ExecutionStatus = 'Running'`);
  if (flags.waiting) clauses.push('BareAgentWaitingForHuman = true');
  if (flags.model) {
    if (/['"\\]/.test(flags.model)) throw new UsageError('--model must not contain quotes or backslashes');
    clauses.push(`BareAgentModel = '${flags.model}'`);
  }
  if (flags.provider) {
    if (/['"\\]/.test(flags.provider)) throw new UsageError('--provider must not contain quotes or backslashes');
    clauses.push(`BareAgentProvider = '${flags.provider}'`);
  }
  if (flags.forkedFrom) {
    if (/['"\\]/.test(flags.forkedFrom)) throw new UsageError('--forked-from must not contain quotes or backslashes');
    clauses.push(`BareAgentForkedFrom = '${flags.forkedFrom}'`);
  }
  if (flags.query) clauses.push(`(${flags.query})`);
  return clauses.join(' AND ');
}

/** `bareagent list`: agentRun workflows, newest first, filtered on the search attributes. */
export async function listCommand(flags: ListFlags): Promise<number> {
  const limit = Number(flags.limit ?? 20);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive whole number, got "${flags.limit}"`);
  const query = listQuery(flags);
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const infos: WorkflowExecutionInfo[] = [];
    for await (const info of stack.client.workflow.list({ query, pageSize: Math.min(limit, 100) })) {
      infos.push(info);
      if (infos.length >= limit) break;
    }
    const runs = await Promise.all(infos.map((info) => listedRun(stack.client, info)));
    if (flags.json) {
      console.log(visibleJson(runs, undefined, 2));
      return 0;
    }
    if (runs.length === 0) console.log('No agentRun workflow matches.');
    else {
      // The VERSION column only where Worker Versioning is in use.
      const versioned = runs.some((r) => r.version);
      const rows = runs.map((r) => [r.workflowId, r.status, String(r.iterations ?? '-'), r.model ?? '-', r.provider ?? '-', ...(versioned ? [r.version ?? '-'] : []), localTime(r.startTime), firstLine(r.summary ?? '', 60)]);
      console.log(formatTable(['WORKFLOW ID', 'STATUS', 'ITER', 'MODEL', 'PROVIDER', ...(versioned ? ['VERSION'] : []), 'STARTED', 'SUMMARY'], rows));
    }
    console.error(pc.dim(`query: ${query}`));
    return 0;
  } finally {
    await stack.close();
  }
}

async function listedRun(client: Client, info: WorkflowExecutionInfo): Promise<ListedRun> {
  const attributes = info.typedSearchAttributes;
  const executionStatus = info.status.name.toLowerCase();
  const reported = attributes.get(keys.status);
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    status: info.status.name === 'RUNNING' || info.status.name === 'COMPLETED' || info.status.name === 'FAILED' ? (reported ?? executionStatus) : executionStatus,
    executionStatus,
    waitingForHuman: attributes.get(keys.waiting) ?? false,
    iterations: attributes.get(keys.iterations) ?? null,
    model: attributes.get(keys.model) ?? null,
    provider: attributes.get(keys.provider) ?? null,
    forkedFrom: attributes.get(keys.forkedFrom) ?? null,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
    ...(await described(client, info)),
  };
}

/**
 * List entries carry no user metadata in this server API version, so the summary needs a describe;
 * the same describe gives the run's deployment version, which a closed run's search attribute can
 * leave at the version it started on when a pinned chain moved to a newer build.
 */
async function described(client: Client, info: WorkflowExecutionInfo): Promise<{ summary: string | null; version: string | null }> {
  try {
    const description = await client.workflow.getHandle(info.workflowId, info.runId).describe();
    const summary = await description.staticSummary();
    return { summary: summary ? firstLine(summary, 1000) : null, version: versionLabel(description) || versionLabel(info) || null };
  } catch {
    // Encrypted without BAREAGENT_ENCRYPTION_KEY here, or the run was deleted meanwhile.
    return { summary: '(unreadable)', version: versionLabel(info) || null };
  }
}

function localTime(iso: string): string {
  // The sv-SE locale formats as "2025-01-31 14:05:09", sortable and unambiguous.
  return new Date(iso).toLocaleString('sv-SE');
}

export function registerList(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('list')
    .addOption(new Option('-s, --status <status>', 'only runs with this BareAgentStatus').choices(RUN_STATUSES))
    .option('--waiting', 'only open runs waiting for a human (BareAgentWaitingForHuman = true)')
    .option('-m, --model <name>', 'only runs of this model (BareAgentModel)')
    .option('--provider <name>', 'only runs served by this provider (BareAgentProvider)')
    .option('--forked-from <workflowId>', 'only forks and resumes of this run (BareAgentForkedFrom)')
    .option('-q, --query <visibility query>', "an extra visibility clause, e.g. \"StartTime > '2025-01-01T00:00:00Z'\"")
    .option('-n, --limit <n>', 'at most this many runs, newest first', '20')
    .option('--json', 'print a JSON array')
    .description('list agentRun workflows, filtered on their search attributes')
    .addHelpText(
      'after',
      `
Columns: workflow id, status (BareAgentStatus: running, awaiting_approval, completed, failed; or
cancelled/terminated/timed_out from Temporal), iterations, model, provider (BareAgentProvider:
the adapter that served its turns; "-" before its first reply), start time, and the run's
summary (the first line of its prompt; "fork of <id> at step N: ..." for a fork); with Worker
Versioning, a VERSION column (deployment:build the run is pinned to). The visibility query it used is printed on stderr; paste
it into the Web UI's filter box to see the same list there.

Examples:
  bareagent list
  bareagent list --waiting
  bareagent list --status failed --model gpt-4.1-mini --limit 5
  bareagent list --forked-from fix-1
  bareagent list --json | jq -r '.[].workflowId'`,
    )
    .action((flags: ListFlags) => settle(listCommand(flags)));
}
