import type { ToolArgs } from '../../common/tool-schemas';
import { commandEnv, runShell } from '../shell';
import { MAX_TOOL_OUTPUT_CHARS } from './limits';

export interface BashContext {
  signal?: AbortSignal;
  onTick?: () => void;
}

/** BareAgent's bash: a failure or a timeout is an ordinary result the model reads. */
export async function bash(root: string, args: ToolArgs<'bash'>, context: BashContext = {}): Promise<string> {
  const result = await runShell(args.command, {
    cwd: root,
    timeoutMs: args.timeout * 1000,
    env: commandEnv(),
    maxChars: MAX_TOOL_OUTPUT_CHARS,
    ...context,
  });
  const note = result.truncatedChars ? `\n[output truncated: ${result.truncatedChars} more characters]` : '';
  const output = result.output + note;
  if (result.timedOut) return `Error: command timed out after ${args.timeout} seconds${output ? `\n${output}` : ''}`;
  if (result.cancelled) return `Error: command cancelled${output ? `\n${output}` : ''}`;
  if (result.exitCode !== 0) return `Command failed with exit code ${result.exitCode ?? 'signal'}\n${output}`;
  return output;
}
