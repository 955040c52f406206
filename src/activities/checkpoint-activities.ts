import { Context } from '@temporalio/activity';
import type { CheckpointRequest, CheckpointResult, RestoreRequest, RestoreResult } from '../common/checkpoint';
import { workspaceRoot } from './tools/workspace';
import { describeChanges, hasTree } from '../checkpoints/history';
import { takeCheckpoint } from '../checkpoints/incremental';
import { snapshotLimits } from '../checkpoints/limits';
import { RestoreRefused, restoreTree } from '../checkpoints/restore';
import { runRef, storeFor } from '../checkpoints/store';

/** Heartbeats while git works, so a killed worker is noticed in seconds and the checkpoint is taken again elsewhere. */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  // A local activity has no heartbeat of its own (the SDK keeps its workflow task alive).
  const timer = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), 2000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** How many of what a snapshot left out its result names: the result goes into the run's history. */
const LEFT_OUT_KEPT = 20;

/**
 * A snapshot of the workspace after a tool round (or at run start), on the worker that holds
 * it. Idempotent: the same files give the same tree, and the ref moves only when the tree is
 * new, so a retry after a lost worker records the same id. A failure (no git, a full disk) is a
 * value: the run goes on without that checkpoint.
 */
export async function checkpointWorkspace(request: CheckpointRequest): Promise<CheckpointResult> {
  try {
    return await heartbeating(async () => {
      const root = workspaceRoot(request.workspace);
      const store = storeFor(root);
      const ask = { store, root, ref: runRef(request.workflowId), message: `checkpoint: ${request.label}`, deny: request.deny, limits: snapshotLimits(), previous: request.previous, base: request.base, paths: request.paths };
      const taken = await takeCheckpoint(ask);
      const changed = taken.changed;
      const leftOut = taken.leftOut.slice(0, LEFT_OUT_KEPT);
      if (taken.leftOut.length > LEFT_OUT_KEPT) leftOut.push(`... and ${taken.leftOut.length - LEFT_OUT_KEPT} more`);
      return { ok: true as const, id: taken.tree, workspace: root, store, changed: changed.length, files: taken.files, skipped: taken.skipped, summary: describeChanges(changed), ...(leftOut.length > 0 ? { leftOut } : {}) };
    });
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/**
 * A fork's `restoreFiles`: its origin's snapshot back into the workspace before the first turn.
 * The snapshot must be in this workspace's own store (a fork shares its origin's workspace).
 */
export async function restoreWorkspace(request: RestoreRequest): Promise<RestoreResult> {
  return heartbeating(async () => {
    const root = workspaceRoot(request.workspace);
    const store = storeFor(root);
    if (store !== request.store) return { ok: false as const, error: `the origin's checkpoints are of another workspace (${request.store}), not of ${root}` };
    if (!(await hasTree(store, request.id))) return { ok: false as const, error: `the checkpoint ${request.id} is not in ${store}` };
    // No human to ask: files no checkpoint held are kept in `saved` first, as a rewind --force does.
    const restored = await restoreTree(store, root, request.id, { ref: runRef(request.workflowId), deny: request.deny, limits: snapshotLimits(), label: `restore ${request.id}` }).catch((err: Error) => {
      if (err instanceof RestoreRefused) return { refused: err.message };
      throw err;
    });
    if ('refused' in restored) return { ok: false as const, error: restored.refused };
    const notRestored = notPutBack(request.leftOut ?? [], restored.leftOut, [...restored.changed.map((c) => c.path), ...restored.keptOutside]);
    return {
      ok: true as const,
      saved: restored.saved,
      changed: restored.changed.map((c) => `${c.status} ${c.path}`),
      keptOutside: restored.keptOutside,
      removedSpecial: restored.removedSpecial,
      ...(notRestored.length > 0 ? { notRestored } : {}),
    };
  });
}

/**
 * What a restore could not put back, one line each: what the origin's snapshot could not hold
 * (it has no bytes of it), and what the workspace holds now that no snapshot does and that the
 * checkout left as it is (over the caps, excluded, a nested repository). A file the restore did
 * write back is not among them.
 */
export function notPutBack(originLeftOut: readonly string[], leftNow: readonly string[], written: readonly string[]): string[] {
  const wasWritten = (line: string) => written.some((file) => line.startsWith(`${file} (`));
  const lines = [
    ...originLeftOut.filter((line) => !line.startsWith('... and ')).map((line) => `${line}: the checkpoint does not hold it`),
    ...leftNow.filter((line) => !wasWritten(line)).map((line) => `${line}: left as it is now`),
  ];
  if (lines.length <= LEFT_OUT_KEPT) return lines;
  return [...lines.slice(0, LEFT_OUT_KEPT), `... and ${lines.length - LEFT_OUT_KEPT} more`];
}
