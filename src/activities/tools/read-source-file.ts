import { readWorkspaceFile } from './read-workspace-file';
import { workspaceRoot } from './workspace';

/** A draft turn's file is at most this: a small model's context is small, and the request holds it whole. */
export const DRAFT_SOURCE_BYTES = 32 * 1024;

export type SourceFile = { text: string } | { skipped: string };

/**
 * The exact text of one workspace file a draft turn will rewrite (src/workflows/draft-turn.ts):
 * read as the worker reads its own files (no link out, no FIFO, a size cap), valid UTF-8 or not
 * at all. A reason instead of the text when the draft must not use it.
 */
export async function readSourceFile(request: { workspace?: string; path: string }): Promise<SourceFile> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readWorkspaceFile(workspaceRoot(request.workspace), request.path, DRAFT_SOURCE_BYTES);
  } catch (err) {
    return { skipped: err instanceof Error ? err.message : String(err) };
  }
  if (bytes === undefined) return { skipped: 'no such file' };
  const text = bytes.toString('utf8');
  // Not text the file holds byte for byte: a rewrite from it would change bytes nobody asked to change.
  if (!Buffer.from(text, 'utf8').equals(bytes) || text.includes('\0')) return { skipped: 'not UTF-8 text' };
  return { text };
}
