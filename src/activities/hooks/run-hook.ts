import type { HookRun } from '../../common/hooks';
import type { SandboxRequest } from '../../common/sandbox';
import { runActivityCommand } from '../activity-shell';

/** What a hook may print that the run keeps. */
const HOOK_OUTPUT_CHARS = 8_000;

export interface HookRequest {
  workspace?: string;
  command: string;
  /** The event's JSON, written to the hook's stdin. */
  input: unknown;
  timeoutSeconds: number;
  sandbox?: SandboxRequest;
}

/** One hook command, in the run's sandbox like `bash`, with the event's JSON on its stdin. */
export async function runHook(request: HookRequest): Promise<HookRun> {
  const result = await runActivityCommand({ ...request, maxChars: HOOK_OUTPUT_CHARS, stdin: JSON.stringify(request.input) });
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, timedOut: result.timedOut };
}
