import type { Client } from '@temporalio/client';
import { checkpointAt, type CheckpointsView } from '../common/checkpoint';
import { checkpointsQuery } from '../common/contract';
import { queryRun } from '../runs/query-run';
import { UsageError } from '../runs/usage-error';

export interface RunCheckpointsRead {
  view: CheckpointsView & { workspace: string; store: string };
  /** RUNNING, COMPLETED, FAILED, ...: rewind refuses a running run. */
  status: string;
}

/** A run's checkpoints (the `checkpoints` query, closed runs too), or a clear error when it has none. */
export async function readRunCheckpoints(client: Client, workflowId: string): Promise<RunCheckpointsRead> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const view = await queryRun(client, workflowId, checkpointsQuery);
  if (view.pending) throw new UsageError(`Run ${workflowId} has not changed the workspace: no round of it could write yet, so there is nothing to diff or rewind (its step 0 is taken before the first round that may write).`);
  if (!view.store || !view.workspace) {
    const why = view.error ? `its worker could not take one: ${view.error}` : 'it ran with checkpoints: false, or started before checkpoints existed';
    throw new UsageError(`Run ${workflowId} has no checkpoints (${why}).`);
  }
  return { view: view as RunCheckpointsRead['view'], status: description.status.name };
}

/** A `--step`-like flag: a whole step number from 0 (the run start) to the run's last step. */
export function stepFlag(name: string, raw: string | undefined, view: CheckpointsView): number | undefined {
  if (raw === undefined) return undefined;
  const step = Number(raw);
  if (!Number.isInteger(step) || step < 0) throw new UsageError(`${name} must be a step number (0 for the run start, see bareagent history), got "${raw}"`);
  if (step > view.lastStep) throw new UsageError(`${name} ${step} is past the run's last step (${view.lastStep})`);
  return step;
}

/** The snapshot in effect at a step; step 0 is the run start. */
export function snapshotAt(view: CheckpointsView, step: number): { step: number; id: string } {
  const found = checkpointAt(view, step);
  if (!found) throw new UsageError(`the run has no checkpoint at or before step ${step}: the steps it keeps start later (give the runId of an earlier run)`);
  return { step: found.step, id: found.id };
}
