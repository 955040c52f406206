import type { HookRun } from '../../common/hooks';
import type { SandboxRequest } from '../../common/sandbox';
import type { PinnedFile } from '../../common/pinned-files';
import { runActivityCommand } from '../activity-shell';
import { PinnedFileChangedError } from '../settings/pinned-programs';
import { pinnedCopies, type PinnedCopies } from '../settings/pinned-copies';
import { workspaceRoot } from '../tools/workspace';

/** What a hook may print that the run keeps. */
const HOOK_OUTPUT_CHARS = 8_000;

export interface HookRequest {
  workspace?: string;
  command: string;
  /** The event's JSON, written to the hook's stdin. */
  input: unknown;
  timeoutSeconds: number;
  sandbox?: SandboxRequest;
  /** The workspace files the command runs, as recorded at run start. */
  pins?: PinnedFile[];
}

/** One hook command, in the run's sandbox like `bash`, with the event's JSON on its stdin. */
export async function runHook(request: HookRequest): Promise<HookRun> {
  let pinned: PinnedCopies;
  try {
    pinned = await pinnedCopies(workspaceRoot(request.workspace), request.pins);
  } catch (err) {
    if (err instanceof PinnedFileChangedError) return { exitCode: null, stdout: '', stderr: '', timedOut: false, refused: err.message };
    throw err;
  }
  try {
    const result = await runActivityCommand({ ...request, maxChars: HOOK_OUTPUT_CHARS, stdin: JSON.stringify(request.input), pinnedCopies: pinned.copies });
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, timedOut: result.timedOut };
  } finally {
    await pinned.remove();
  }
}
