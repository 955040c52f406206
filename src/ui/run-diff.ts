import { diffFiles, diffText, type FileDiff } from '../checkpoints/diff';
import { diffRedactor } from '../checkpoints/redaction';
import { checkpointAt, type CheckpointsView } from '../common/checkpoint';

/** Past this many characters the page shows the diff's head and says where the rest is. */
export const DIFF_CHARS = 60_000;

/** What changed in the workspace between two of a run's checkpoints, as the page shows it. */
export type DiffView =
  | { kind: 'diff'; fromStep: number; toStep: number; files: FileDiff[]; text: string; totalChars: number }
  | { kind: 'none'; why: string };

/**
 * The workspace's changes from step `fromStep` to `toStep` (default: the run start to its newest
 * checkpoint), read from the run's shadow store like `bareagent diff` (the same git hardening,
 * the same secrets redactor). Names and text are the agent's: the page escapes them. A store this
 * process cannot read (the worker on another machine) is said, never thrown.
 */
export async function runDiff(view: CheckpointsView | undefined, fromStep = 0, toStep?: number): Promise<DiffView> {
  if (!view) return { kind: 'none', why: 'its checkpoints could not be read' };
  if (view.pending) return { kind: 'none', why: 'no round has written yet: the workspace is as the run found it' };
  if (!view.store || !view.workspace) return { kind: 'none', why: view.error ? `no checkpoint: ${view.error}` : 'the run keeps no checkpoints' };
  const last = toStep ?? view.lastStep;
  const from = checkpointAt(view, fromStep);
  const to = checkpointAt(view, last);
  if (!from || !to) return { kind: 'none', why: 'no checkpoint yet' };
  if (from.id === to.id) return { kind: 'diff', fromStep: from.step, toStep: to.step, files: [], text: '', totalChars: 0 };
  try {
    const redactor = diffRedactor();
    const [files, text] = await Promise.all([diffFiles(view.store, from.id, to.id), diffText(view.store, from.id, to.id, false)]);
    const redacted = redactor.redact(text);
    return {
      kind: 'diff',
      fromStep: from.step,
      toStep: to.step,
      files: files.map((file) => ({ ...file, path: redactor.redact(file.path) })),
      text: redacted.length > DIFF_CHARS ? redacted.slice(0, DIFF_CHARS) : redacted,
      totalChars: redacted.length,
    };
  } catch (err) {
    return { kind: 'none', why: `its checkpoint store is not readable here (${(err as Error).message.split('\n')[0]})` };
  }
}
