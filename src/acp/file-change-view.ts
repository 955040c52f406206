import path from 'node:path';
import type { Client } from '@temporalio/client';
import { fileChanges } from '../checkpoints/file-changes';
import { checkpointsQuery } from '../common/contract';
import type { ToolCheckpoints } from '../common/events';
import { queryRun } from '../runs/query-run';
import type { Acp } from './acp-sdk';

/**
 * What a tool call changed in the workspace, as ACP content: a `diff` per file from the run's
 * checkpoints before and after the call (so a `sed -i` run by bash shows as one too), a file too
 * large, binary or past the limits named instead. Empty when the run has no store to read.
 */
export async function fileChangeView(client: Client, session: { id: string; cwd: string; store?: string | undefined }, around: ToolCheckpoints): Promise<Acp.ToolCallContent[]> {
  session.store ??= (await queryRun(client, session.id, checkpointsQuery).catch(() => undefined))?.store;
  if (!session.store) return [];
  const { changes, more } = await fileChanges(session.store, around.before, around.after);
  const content: Acp.ToolCallContent[] = changes.map((change) =>
    'notShown' in change
      ? { type: 'content', content: { type: 'text', text: `${change.path}: ${change.status}, not shown (${change.notShown})` } }
      : { type: 'diff', path: path.join(session.cwd, change.path), oldText: change.oldText, newText: change.newText },
  );
  if (more > 0) content.push({ type: 'content', content: { type: 'text', text: `and ${more} more files changed (bareagent diff ${session.id} shows them all)` } });
  return content;
}
