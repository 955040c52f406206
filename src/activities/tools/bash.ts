import type { SandboxKind, SandboxRequest } from '../../common/sandbox';
import type { ToolArgs } from '../../common/tool-schemas';
import { DEFAULT_SANDBOX_REQUEST, runShell } from '../../sandbox/shell';
import { BASH_TAIL_CHARS, MAX_TOOL_OUTPUT_CHARS } from './limits';

export interface BashContext {
  signal?: AbortSignal;
  onTick?: () => void;
  /** What the run's sandbox opens up; no network and a writable workspace when absent. */
  sandbox?: SandboxRequest;
  /** Told how the command was confined (for the tool outcome). */
  onSandbox?: (kind: SandboxKind) => void;
  /** The call's idempotency key (BAREAGENT_CALL_ID in the command's environment). */
  callId?: string;
}

/** BareAgent's bash: a failure or a timeout is an ordinary result the model reads. */
export async function bash(root: string, args: ToolArgs<'bash'>, context: BashContext = {}): Promise<string> {
  const { sandbox, onSandbox, ...rest } = context;
  const result = await runShell(args.command, {
    workspace: root,
    sandbox: sandbox ?? DEFAULT_SANDBOX_REQUEST,
    timeoutMs: args.timeout * 1000,
    maxChars: MAX_TOOL_OUTPUT_CHARS,
    tailChars: BASH_TAIL_CHARS,
    ...rest,
  });
  onSandbox?.(result.sandbox);
  const output = keptOutput(result);
  if (result.timedOut) return `Error: command timed out after ${args.timeout} seconds${output ? `\n${output}` : ''}`;
  if (result.cancelled) return `Error: command cancelled${output ? `\n${output}` : ''}`;
  if (result.exitCode !== 0) return `Command failed with exit code ${result.exitCode ?? 'signal'}\n${output}`;
  // An empty result reads to a model like nothing happened; this says the command ran and passed.
  return output || '(no output; exit code 0)';
}

/** The head and the tail of a long output, with how much was cut between them. */
function keptOutput(result: { output: string; truncatedChars: number; tailStart?: number }): string {
  if (!result.truncatedChars) return result.output;
  const at = result.tailStart ?? result.output.length;
  const head = result.output.slice(0, at);
  const tail = result.output.slice(at);
  const note = `[output truncated: ${result.truncatedChars} characters cut${tail ? ' here; the last lines follow' : ''}]`;
  return tail ? `${head}\n${note}\n${tail}` : `${head}\n${note}`;
}
