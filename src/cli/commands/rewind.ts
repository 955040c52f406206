import path from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import { changedFiles, record, refTree } from '../../checkpoints/history';
import { snapshotLimits } from '../../checkpoints/limits';
import { copyTree, restoreTree } from '../../checkpoints/restore';
import { snapshot } from '../../checkpoints/snapshot';
import { runRef } from '../../checkpoints/store';
import { openStack } from '../local-stack';
import { readRunCheckpoints, snapshotAt, stepFlag } from '../run-checkpoints';
import { UsageError } from '../run-input';

export interface RewindFlags {
  step?: string;
  force?: boolean;
  to?: string;
  json?: boolean;
}

/**
 * `bareagent rewind <workflowId> --step N`: the workspace back to the run's checkpoint of step N
 * (0: as it was before the run began), through git's own checkout in the run's shadow store.
 * Refused while the run runs (it would write over the agent's work), and when the workspace
 * changed since the run's last checkpoint or rewind unless `--force`, which keeps those changes
 * on the run's ref first. `--to DIR` writes the step's files into DIR and leaves the workspace be.
 */
export async function rewindCommand(workflowId: string, flags: RewindFlags): Promise<number> {
  if (flags.step === undefined) throw new UsageError('--step is required: the step to go back to (0 undoes the whole run)');
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const { view, status } = await readRunCheckpoints(stack.client, workflowId);
    const step = stepFlag('--step', flags.step, view)!;
    const target = snapshotAt(view, step);
    const say = (text: string) => (flags.json ? undefined : console.log(text));
    if (flags.to !== undefined) {
      const dir = path.resolve(flags.to);
      const files = await copyTree(view.store, target.id, dir).catch((err: Error) => {
        throw new UsageError(`--to: ${err.message}`);
      });
      if (flags.json) console.log(JSON.stringify({ workflowId, step, checkpoint: target.id, to: dir, files }));
      say(`Wrote the ${files} files of step ${step} (checkpoint ${target.id.slice(0, 12)}) into ${dir}; the workspace is untouched.`);
      return 0;
    }
    if (status === 'RUNNING') throw new UsageError(`Run ${workflowId} is still running: cancel it first (bareagent cancel ${workflowId}), or copy the files elsewhere with --to DIR.`);
    const ref = runRef(workflowId);
    const limits = snapshotLimits();
    const now = await snapshot(view.store, view.workspace, view.deny, limits);
    const expected = await refTree(view.store, ref);
    let saved: string | undefined;
    if (expected !== now.tree) {
      const since = await changedFiles(view.store, expected, now.tree);
      if (!flags.force) {
        const list = since.slice(0, 20).map((c) => `  ${c.status} ${c.path}`).join('\n');
        throw new UsageError(`The workspace ${view.workspace} changed since the run's last checkpoint:\n${list}${since.length > 20 ? `\n  ... and ${since.length - 20} more` : ''}\nRewind with --force to keep those changes as a checkpoint of their own and go back anyway.`);
      }
      await record(view.store, ref, now.tree, 'changes found before a rewind');
      saved = now.tree;
    }
    const restored = await restoreTree(view.store, view.workspace, target.id, { ref, deny: view.deny, limits, label: `rewind to step ${step}` });
    if (flags.json) {
      console.log(JSON.stringify({ workflowId, step, checkpoint: target.id, workspace: view.workspace, ...(saved ? { saved } : {}), changed: restored.changed }));
      return 0;
    }
    if (saved) say(pc.yellow(`Kept the changes made after the run's last checkpoint as checkpoint ${saved} (git --git-dir ${view.store} show ${saved}).`));
    if (restored.changed.length === 0) say(`The workspace already had the files of step ${step}: nothing changed.`);
    else {
      say(`Put ${view.workspace} back to step ${step} (checkpoint ${target.id.slice(0, 12)}): ${restored.changed.length} file${restored.changed.length === 1 ? '' : 's'} changed back.`);
      for (const change of restored.changed) say(`  ${WHAT[change.status] ?? change.status} ${change.path}`);
    }
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
    .requiredOption('--step <n>', 'the step to go back to (0: before the run began)')
    .option('--force', 'also when the workspace changed after the run\'s last checkpoint (those changes are kept as a checkpoint first)')
    .option('--to <dir>', "write the step's files into this new or empty directory instead; the workspace is untouched")
    .option('--json', 'print JSON')
    .description("put a run's workspace back to one of its checkpoints (or copy one elsewhere)")
    .addHelpText(
      'after',
      `
Only files a checkpoint holds are written or removed: ignored (.gitignore), excluded, denied
(read_file deny rules), oversized and special files are left as they are, and the workspace's own
.git is never touched. Every rewind keeps the files it replaces on the run's ref, so a rewind can
itself be undone: bareagent rewind <id> --step <last step>.

Examples:
  bareagent rewind fix-1 --step 0            # undo the whole run
  bareagent rewind fix-1 --step 3
  bareagent rewind fix-1 --step 3 --to /tmp/fix-1-step-3`,
    )
    .action((workflowId: string, flags: RewindFlags) => settle(rewindCommand(workflowId, flags)));
}
