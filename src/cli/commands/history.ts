import { stepsQuery } from '../../common/contract';
import { visibleText, visibleJson } from '../../common/visible-text';
import type { Command } from 'commander';
import type { BudgetSnapshot, StepRecord } from '../../common/wire';
import { openStack } from '../local-stack';
import { queryRun } from '../../runs/query-run';
import { formatTable } from '../../terminal/table';

/** `bareagent history <workflowId>`: the run's step records (the `steps` query) as a table. */
export async function historyCommand(workflowId: string, flags: { json?: boolean }): Promise<number> {
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const steps = await queryRun(stack.client, workflowId, stepsQuery);
    if (flags.json) {
      console.log(visibleJson(steps, undefined, 2));
      return 0;
    }
    if (steps.length === 0) {
      console.log(`Run ${workflowId} has not finished a step yet.`);
      return 0;
    }
    console.log(formatTable(['STEP', 'REASON', 'TOOLS', 'NEW EVIDENCE', 'TOKENS IN/OUT', 'ITER LEFT', 'DETAIL'], steps.map(stepRow)));
    return 0;
  } finally {
    await stack.close();
  }
}

/** Records come from a remote query: read them defensively, a field can be missing in older runs. */
function stepRow(step: StepRecord): string[] {
  const before = step.budget_before as Partial<BudgetSnapshot> | undefined;
  const after = step.budget_after as Partial<BudgetSnapshot> | undefined;
  const spent = (field: 'inputTokens' | 'outputTokens') => (after?.used?.[field] ?? 0) - (before?.used?.[field] ?? 0);
  const tools = step.tools ?? [];
  return [
    String(step.step_id),
    step.reason,
    tools.length === 0 ? '-' : clip(visibleText(tools.join(', ')), 70),
    String(step.evidence_delta ?? '-'),
    after?.used ? `${spent('inputTokens')}/${spent('outputTokens')}` : '-',
    after?.iterations === null ? '∞' : String(after?.iterations ?? '-'),
    visibleText(step.detail ?? ''),
  ];
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function registerHistory(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('history')
    .argument('<workflowId>', 'the run (open or closed)')
    .option('--json', 'print the step records as JSON')
    .description("show a run's step records: why each step ended, its tools, evidence and cost")
    .addHelpText(
      'after',
      `
One row per step (model turn): its reason (next_turn, compacted, waiting_for_jobs, stop:<reason>,
...), its tool calls, how many tool results brought new evidence, the tokens it used and the
iterations left after it. The same records as: temporal workflow query --workflow-id <id> --name steps

Examples:
  bareagent history fix-1
  bareagent history fix-1 --json | jq '.[] | select(.reason | startswith("stop"))'`,
    )
    .action((workflowId: string, flags: { json?: boolean }) => settle(historyCommand(workflowId, flags)));
}
