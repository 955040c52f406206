import path from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import type { AtRisk } from '../../checkpoints/at-risk';
import { changedFiles, isOnRef, refTree, type ChangedFile } from '../../checkpoints/history';
import { snapshotLimits } from '../../checkpoints/limits';
import { copyTree, RestoreRefused, restoreTree } from '../../checkpoints/restore';
import { runRef } from '../../checkpoints/store';
import type { CheckpointsView } from '../../common/checkpoint';
import { visibleText, visibleJson } from '../../common/visible-text';
import { openStack } from '../local-stack';
import { leftOutLines } from '../left-out';
import { readRunCheckpoints, snapshotAt, stepFlag } from '../run-checkpoints';
import { UsageError } from '../../runs/usage-error';

export interface RewindFlags {
  step?: string;
  checkpoint?: string;
  force?: boolean;
  to?: string;
  json?: boolean;
}

const LIST = 20;

function listed<T>(items: readonly T[], line: (item: T) => string): string {
  return `${items.slice(0, LIST).map(line).join('\n')}${items.length > LIST ? `\n  ... and ${items.length - LIST} more` : ''}`;
}

function riskLine(item: AtRisk): string {
  const name = visibleText(item.path);
  if (item.kind === 'repository') return `  ! ${name} (its own git repository: no checkpoint can hold it, move it away first)`;
  if (item.kind === 'special') return `  ! ${name} (a FIFO or device: it holds no bytes and would be removed)`;
  return `  ! ${name}`;
}

/** Why a rewind without --force stops: every change since the last checkpoint, every file no checkpoint holds that it would write over. */
function refusal(workspace: string, since: readonly ChangedFile[], atRisk: readonly AtRisk[]): string {
  const parts: string[] = [];
  if (since.length > 0) parts.push(`The workspace ${visibleText(workspace)} changed since the run's last checkpoint:\n${listed(since, (c) => `  ${c.status} ${visibleText(c.path)}`)}`);
  if (atRisk.length > 0) {
    parts.push(`The rewind would write over or remove what no checkpoint holds (ignored, excluded, over the size caps, denied, or inside a folder with its own .git):\n${listed(atRisk, riskLine)}`);
  }
  return `${parts.join('\n')}\nRewind with --force to keep all of it as a checkpoint of its own first (its id is printed; bareagent rewind <run> --checkpoint <id> brings it back) and go back anyway.`;
}

/** The target: a step's checkpoint, or with --checkpoint any snapshot on the run's ref (what an earlier rewind kept). */
async function targetOf(view: CheckpointsView & { store: string }, workflowId: string, flags: RewindFlags): Promise<{ id: string; label: string; step?: number }> {
  if (flags.checkpoint === undefined) {
    const step = stepFlag('--step', flags.step, view)!;
    return { id: snapshotAt(view, step).id, label: `step ${step}`, step };
  }
  const id = flags.checkpoint.trim().toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(id)) throw new UsageError(`--checkpoint must be a 40-character checkpoint id (a rewind prints it), got "${visibleText(flags.checkpoint)}"`);
  if (!(await isOnRef(view.store, runRef(workflowId), id))) throw new UsageError(`--checkpoint ${id} is not one of run ${visibleText(workflowId)}'s checkpoints`);
  return { id, label: `checkpoint ${id.slice(0, 12)}` };
}

/**
 * `bareagent rewind <workflowId> --step N`: the workspace back to the run's checkpoint of step N
 * (0: as it was before the run began), through git's own checkout in the run's shadow store.
 * Refused while the run runs (it would write over the agent's work), and when the workspace
 * changed since the run's last checkpoint or the rewind would write over a file no checkpoint
 * holds, unless `--force`, which keeps all of that as a snapshot on the run's ref first
 * (`--checkpoint <id>` brings it back). `--to DIR` writes the files into DIR and leaves the workspace be.
 */
export async function rewindCommand(workflowId: string, flags: RewindFlags): Promise<number> {
  if (flags.step === undefined && flags.checkpoint === undefined) throw new UsageError('--step is required: the step to go back to (0 undoes the whole run), or --checkpoint <id>');
  if (flags.step !== undefined && flags.checkpoint !== undefined) throw new UsageError('give --step or --checkpoint, not both');
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const { view, status } = await readRunCheckpoints(stack.client, workflowId);
    const target = await targetOf(view, workflowId, flags);
    const step = target.step !== undefined ? { step: target.step } : {};
    const say = (text: string) => (flags.json ? undefined : console.log(text));
    if (flags.to !== undefined) {
      const dir = path.resolve(flags.to);
      const files = await copyTree(view.store, target.id, dir).catch((err: Error) => {
        throw new UsageError(`--to: ${visibleText(err.message)}`);
      });
      if (flags.json) console.log(visibleJson({ workflowId, ...step, checkpoint: target.id, to: dir, files }));
      say(`Wrote the ${files} files of ${target.label} (checkpoint ${target.id.slice(0, 12)}) into ${visibleText(dir)}; the workspace is untouched.`);
      return 0;
    }
    if (status === 'RUNNING') throw new UsageError(`Run ${visibleText(workflowId)} is still running: cancel it first (bareagent cancel ${visibleText(workflowId)}), or copy the files elsewhere with --to DIR.`);
    const ref = runRef(workflowId);
    const expected = await refTree(view.store, ref);
    let since: ChangedFile[] = [];
    const restored = await restoreTree(view.store, view.workspace, target.id, {
      ref,
      deny: view.deny,
      limits: snapshotLimits(),
      label: `rewind to ${target.label}`,
      check: async ({ current, atRisk }) => {
        since = expected === current.tree ? [] : await changedFiles(view.store, expected, current.tree);
        if (!flags.force && (since.length > 0 || atRisk.length > 0)) throw new UsageError(refusal(view.workspace, since, atRisk));
      },
    }).catch((err: Error) => {
      if (err instanceof RestoreRefused) throw new UsageError(visibleText(err.message));
      throw err;
    });
    const kept = since.length > 0 || restored.keptOutside.length > 0;
    if (flags.json) {
      console.log(visibleJson({ workflowId, ...step, checkpoint: target.id, workspace: view.workspace, ...(kept ? { saved: restored.saved } : {}), changed: restored.changed, keptOutside: restored.keptOutside, removedSpecial: restored.removedSpecial, leftOut: restored.leftOut }));
      return 0;
    }
    if (kept) {
      const what = [since.length > 0 ? `${since.length} change${since.length === 1 ? '' : 's'} made after the run's last checkpoint` : '', restored.keptOutside.length > 0 ? `${restored.keptOutside.length} file${restored.keptOutside.length === 1 ? '' : 's'} no checkpoint held` : ''].filter(Boolean).join(' and ');
      say(pc.yellow(`Kept the ${what} as checkpoint ${restored.saved}: bring it back with bareagent rewind ${visibleText(workflowId)} --checkpoint ${restored.saved} (one file: git --git-dir ${visibleText(view.store)} show ${restored.saved}:<file>).`));
      for (const file of restored.keptOutside) say(pc.yellow(`  kept ${visibleText(file)}`));
    }
    for (const file of restored.removedSpecial) say(pc.yellow(`  removed ${visibleText(file)} (a FIFO or device: no bytes)`));
    if (restored.changed.length === 0) say(`The workspace already had the files of ${target.label}: nothing changed.`);
    else {
      say(`Put ${visibleText(view.workspace)} back to ${target.label} (checkpoint ${target.id.slice(0, 12)}): ${restored.changed.length} file${restored.changed.length === 1 ? '' : 's'} changed back.`);
      for (const change of restored.changed) say(`  ${WHAT[change.status] ?? change.status} ${visibleText(change.path)}`);
    }
    for (const line of leftOutLines(restored.leftOut, 'this rewind neither saved nor restored')) say(pc.dim(line));
    return 0;
  } finally {
    await stack.close();
  }
}

/** What the rewind did to a file, read from the difference now → step N. */
const WHAT: Record<string, string> = { A: 'restored', D: 'removed ', M: 'reverted', T: 'reverted' };

export function registerRewind(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('rewind')
    .argument('<workflowId>', 'a run that is not running (any run with --to)')
    .option('--step <n>', 'the step to go back to (0: before the run began)')
    .option('--checkpoint <id>', 'instead of --step: one of the run\'s snapshots by id, such as what a forced rewind kept')
    .option('--force', 'also when the workspace changed after the run\'s last checkpoint, or the rewind would write over a file no checkpoint holds (all of it is kept as a checkpoint first)')
    .option('--to <dir>', "write the step's files into this new or empty directory instead; the workspace is untouched")
    .option('--json', 'print JSON')
    .description("put a run's workspace back to one of its checkpoints (or copy one elsewhere)")
    .addHelpText(
      'after',
      `
Only paths the checkpoint holds are written or removed, and each is compared with what is on disk
first: a file there that no checkpoint holds (ignored, excluded, denied, oversized, inside a folder
with its own .git) makes the rewind refuse, naming it, unless --force, which keeps it first. Other
ignored, excluded and special files are left as they are, and the workspace's own .git is never
touched. Every rewind keeps what it replaces on the run's ref: bareagent rewind <id> --checkpoint
<kept id> brings it back.

Examples:
  bareagent rewind fix-1 --step 0            # undo the whole run
  bareagent rewind fix-1 --step 3
  bareagent rewind fix-1 --step 3 --to /tmp/fix-1-step-3`,
    )
    .action((workflowId: string, flags: RewindFlags) => settle(rewindCommand(workflowId, flags)));
}
