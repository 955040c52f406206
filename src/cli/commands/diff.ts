import type { Command } from 'commander';
import { diffFiles, diffText } from '../../checkpoints/diff';
import { diffRedactor } from '../../checkpoints/redaction';
import { visibleText, visibleJson } from '../../common/visible-text';
import { leftOutLines } from '../left-out';
import { openStack } from '../local-stack';
import { readRunCheckpoints, snapshotAt, stepFlag } from '../run-checkpoints';

export interface DiffFlags {
  step?: string;
  from?: string;
  stat?: boolean;
  json?: boolean;
}

/**
 * `bareagent diff <workflowId>`: what the run changed in its workspace, between two of its
 * checkpoints (default: the run start and its last step; `--step N` alone: that step's own
 * changes). Text passes through the secrets redactor, like every tool result.
 */
export async function diffCommand(workflowId: string, flags: DiffFlags): Promise<number> {
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const { view } = await readRunCheckpoints(stack.client, workflowId);
    const toStep = stepFlag('--step', flags.step, view) ?? view.lastStep;
    const fromStep = stepFlag('--from', flags.from, view) ?? (flags.step !== undefined ? Math.max(0, toStep - 1) : 0);
    const to = snapshotAt(view, toStep);
    const from = snapshotAt(view, fromStep);
    const redactor = diffRedactor();
    if (flags.json) {
      const files = await diffFiles(view.store, from.id, to.id);
      const leftOut = view.leftOut ?? [];
      console.log(visibleJson({ workflowId, workspace: view.workspace, from: { step: fromStep, checkpoint: from.id }, to: { step: toStep, checkpoint: to.id }, files: files.map((f) => ({ ...f, path: redactor.redact(f.path) })), leftOut }, undefined, 2));
      return 0;
    }
    const text = from.id === to.id ? '' : await diffText(view.store, from.id, to.id, flags.stat === true);
    process.stdout.write(text === '' ? `No file changed between step ${fromStep} and step ${toStep}.\n` : visibleDiff(redactor.redact(text)));
    for (const line of leftOutLines(view.leftOut, 'as of the newest checkpoint; no diff shows them')) process.stderr.write(`${line}\n`);
    return 0;
  } finally {
    await stack.close();
  }
}

/**
 * The diff with every character a terminal would act on written out (`\x1b`), in names and
 * contents alike, line by line; tabs stay, as diffs are full of them. For reading: the files
 * themselves come from `rewind --to`.
 */
export function visibleDiff(text: string): string {
  return text
    .split('\n')
    .map((line) => line.split('\t').map(visibleText).join('\t'))
    .join('\n');
}

export function registerDiff(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('diff')
    .argument('<workflowId>', 'the run (open or closed)')
    .option('--step <n>', "up to this step's checkpoint (default: the last step)")
    .option('--from <m>', 'from this step\'s checkpoint (default: the step before --step, or 0, the run start)')
    .option('--stat', 'files and changed lines only')
    .option('--json', 'the changed files as JSON: path, status (A/M/D/T), lines added and removed')
    .description('show what a run changed in its workspace, from its checkpoints')
    .addHelpText(
      'after',
      `
Every step whose tool round could change the workspace has a checkpoint (bareagent history --json
shows it on the step record); step 0 is the workspace before the run began. Without flags: the
whole run. Files the run could not read (deny rules), ignored and oversized files are not in any
checkpoint; folders left out (their own .git, excluded, over the caps) are named on stderr.
Secrets the worker knows of are redacted from the text, and control characters in names and
contents are shown escaped (\x1b).

Examples:
  bareagent diff fix-1                 # everything the run changed
  bareagent diff fix-1 --step 3        # what step 3 changed
  bareagent diff fix-1 --from 2 --step 5 --stat`,
    )
    .action((workflowId: string, flags: DiffFlags) => settle(diffCommand(workflowId, flags)));
}
