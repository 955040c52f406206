import type { WorkspaceChanges, WorkspaceChangesRequest } from '../../common/may-have-run';
import { walkFiles } from './safe-walk';
import { workspaceRoot } from './workspace';

/** How many entries a look at the workspace walks at most: a cheap look, never a scan of a huge tree. */
const MAX_SCANNED = 5_000;
const MAX_LISTED = 20;
const MAX_NAME_CHARS = 200;

/**
 * The files of the workspace changed since `sinceMs` (modification or status change), for a call
 * whose worker was lost: what it may have done. Only names and times are read (lstat, no symlink
 * followed, no file opened), so a FIFO or a huge file costs nothing; `.git` and `node_modules` are
 * skipped; names are shown JSON-quoted, since the agent chose them.
 */
export async function workspaceChanges(request: WorkspaceChangesRequest): Promise<WorkspaceChanges> {
  const root = workspaceRoot(request.workspace);
  const since = request.sinceMs - 1_000; // file times are coarser than the clock on some file systems
  const changed: Array<{ name: string; at: number }> = [];
  // The walk that never follows a link, so a flipped folder cannot name host files here either.
  const walk = await walkFiles(root, { stats: true, maxFiles: MAX_SCANNED });
  for (const entry of walk.files) {
    const at = Math.max(entry.stats?.mtimeMs ?? 0, entry.stats?.ctimeMs ?? 0);
    if (at >= since) changed.push({ name: entry.relative, at });
  }
  changed.sort((a, b) => b.at - a.at);
  return {
    files: changed.slice(0, MAX_LISTED).map((c) => JSON.stringify(c.name.slice(0, MAX_NAME_CHARS))),
    more: Math.max(0, changed.length - MAX_LISTED),
    complete: !walk.stopped,
  };
}
