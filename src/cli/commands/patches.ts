import type { Client } from '@temporalio/client';
import { visibleJson } from '../../common/visible-text';
import type { Command } from 'commander';
import pc from 'picocolors';
import { PATCH_LEDGER, type PatchEntry } from '../../common/patch-ledger';
import { WORKFLOW_TYPE } from '../../connection/config';
import { openStack } from '../local-stack';
import { formatTable } from '../../terminal/table';

/** How many open runs are named in full per patch; the count is always exact. */
const LISTED_RUNS = 5;

export interface PatchReport {
  id: string;
  state: PatchEntry['state'];
  shipped: string;
  version: string;
  keeps: string;
  /** Open agentRun runs whose current run started before the end of the patch's ship day. */
  openRunsBefore: number;
  runs: string[];
  verdict: string;
}

/**
 * The end of the ship day, not its start: a run started that day may have started before the
 * patch landed, so it counts (too many runs is the safe side; too few would let a branch go early).
 */
export function startedBefore(shipped: string): string {
  const end = new Date(`${shipped}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  return end.toISOString().replace('.000Z', 'Z');
}

export function openRunsQuery(entry: Pick<PatchEntry, 'shipped'>, extra?: string): string {
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`, `ExecutionStatus = 'Running'`, `StartTime < '${startedBefore(entry.shipped)}'`];
  if (extra) clauses.push(`(${extra})`);
  return clauses.join(' AND ');
}

function verdictFor(entry: PatchEntry, open: number): string {
  if (entry.state === 'removed') return 'removed';
  if (open > 0) return `keep: ${open} open run(s) may replay the old branch`;
  return entry.state === 'active' ? 'old branch may go (deprecatePatch)' : 'call may go once no older worker build runs';
}

async function reportOn(client: Client, entry: PatchEntry, extra: string | undefined): Promise<PatchReport> {
  const base = { id: entry.id, state: entry.state, shipped: entry.shipped, version: entry.version, keeps: entry.keeps };
  if (entry.state === 'removed') return { ...base, openRunsBefore: 0, runs: [], verdict: verdictFor(entry, 0) };
  const query = openRunsQuery(entry, extra);
  const { count } = await client.workflow.count(query);
  const runs: string[] = [];
  if (count > 0) {
    for await (const info of client.workflow.list({ query, pageSize: LISTED_RUNS })) {
      runs.push(info.workflowId);
      if (runs.length >= LISTED_RUNS) break;
    }
  }
  return { ...base, openRunsBefore: count, runs, verdict: verdictFor(entry, count) };
}

/** `bareagent patches`: the patch ledger, and per patch the open runs that may still need its old branch. */
export async function patchesCommand(flags: { query?: string; json?: boolean }): Promise<number> {
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const reports: PatchReport[] = [];
    for (const entry of PATCH_LEDGER) reports.push(await reportOn(stack.client, entry, flags.query));
    if (flags.json) {
      console.log(visibleJson(reports, undefined, 2));
      return 0;
    }
    const rows = reports.map((r) => [r.id, r.state, r.shipped, String(r.openRunsBefore), r.verdict]);
    console.log(formatTable(['PATCH', 'STATE', 'SHIPPED', 'OPEN RUNS BEFORE', 'VERDICT'], rows));
    for (const r of reports.filter((x) => x.runs.length > 0)) {
      const more = r.openRunsBefore > r.runs.length ? ` and ${r.openRunsBefore - r.runs.length} more` : '';
      console.log(`${r.id}: ${r.runs.join(', ')}${more}`);
    }
    const example = PATCH_LEDGER.find((p) => p.state !== 'removed');
    if (example) console.error(pc.dim(`counted by, e.g. for ${example.id}: ${openRunsQuery(example, flags.query)}`));
    return 0;
  } finally {
    await stack.close();
  }
}

export function registerPatches(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('patches')
    .option('-q, --query <visibility query>', "an extra visibility clause, e.g. \"TaskQueue = 'bareagent'\"")
    .option('--json', 'print a JSON array')
    .description("the workflow patch ledger, and the open runs that may still replay each patch's old branch")
    .addHelpText(
      'after',
      `
Each patch id of the agent run, its state (active: the old branch still runs for older histories;
deprecated: the branch is gone, the marker is still written; removed), the day it shipped, and how
many open runs started before the end of that day: those may replay the old branch, so it must
stay until they close (or are reset onto a newer build). The ledger is src/common/patch-ledger.ts.

Examples:
  bareagent patches
  bareagent patches --query "TaskQueue = 'bareagent'" --json | jq '.[] | select(.openRunsBefore > 0)'`,
    )
    .action((flags: { query?: string; json?: boolean }) => settle(patchesCommand(flags)));
}
